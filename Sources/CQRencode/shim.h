/* libqrencode (Debian: libqrencode-dev): the modules of an organizer's
 * printable QR code (encore checkin create-location --png/--svg). */
#include <qrencode.h>
