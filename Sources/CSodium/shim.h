/* libsodium (Debian: libsodium-dev): crypto_secretbox (XSalsa20-Poly1305)
 * for CrowdNotifier's ciphertexts and associated data. */
#include <sodium.h>
