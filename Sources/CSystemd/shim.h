// libsystemd's D-Bus client (sd-bus), Debian's libsystemd-dev. Only
// CTracingBus uses it: sd-bus's vtable macros do not import into Swift.
#include <systemd/sd-bus.h>
