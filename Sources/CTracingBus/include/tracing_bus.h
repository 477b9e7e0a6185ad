// encored's radio: its link to BlueZ over the D-Bus system bus, through
// sd-bus (libsystemd): the advertisement object it exports, the signals it
// watches and the calls it makes, as plain C the Swift tracing loop calls.
// The loop's logic (when to advertise, scan, rotate, record) stays in
// Swift; this file turns D-Bus traffic into events and requests into calls,
// and nothing more. Private to encored: never linked into libencore.so.
//
// A connection of its own (its own unique name, which BlueZ calls), used
// from the radio's one thread; tb_wake alone may be called from any thread.
#ifndef ENCORE_TRACING_BUS_H
#define ENCORE_TRACING_BUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tb_bus tb_bus;

/// What happened on the bus, in the order it happened.
typedef enum {
    TB_EV_BLUEZ_UP = 1,       // org.bluez got an owner (started, restarted)
    TB_EV_BLUEZ_GONE,         // org.bluez lost its owner
    TB_EV_ADAPTER_ADDED,      // path: an object with org.bluez.Adapter1; has_powered/powered
    TB_EV_ADAPTER_REMOVED,    // path: its Adapter1 interface went away
    TB_EV_ADAPTER_POWERED,    // path: Adapter1.Powered changed to powered
    TB_EV_DEVICE,             // path: a Device1 reported (InterfacesAdded or PropertiesChanged)
    TB_EV_DEVICE_REMOVED,     // path: a Device1 went away
    TB_EV_ADV_RELEASED,       // BlueZ called Release() on the advertisement
    TB_EV_REPLY,              // call: a call of tb_call_kind completed; ok, error
} tb_event_kind;

/// The calls whose completion comes back as TB_EV_REPLY.
typedef enum {
    TB_CALL_GET_OBJECTS = 1,
    TB_CALL_REGISTER_ADV,
    TB_CALL_UNREGISTER_ADV,
    TB_CALL_SET_FILTER,
    TB_CALL_START_DISCOVERY,
    TB_CALL_STOP_DISCOVERY,
    TB_CALL_REMOVE_DEVICE,
} tb_call_kind;

enum { TB_PATH_MAX = 192, TB_SERVICE_DATA_MAX = 64, TB_ERROR_MAX = 128, TB_PAYLOAD_SIZE = 20 };

typedef struct {
    int kind;                     // tb_event_kind
    // An adapter's or a device's object path. A device's holds its Bluetooth
    // address: the daemon keeps it in memory only, to remove the device.
    char path[TB_PATH_MAX];
    int has_powered, powered;
    int has_rssi;
    int16_t rssi;
    // The service data of UUID 0xFD6F, when the report carries it.
    int has_service_data;
    size_t service_data_len;      // may exceed 20: the daemon checks it
    uint8_t service_data[TB_SERVICE_DATA_MAX];
    int call;                     // tb_call_kind of a TB_EV_REPLY
    int ok;                       // 1: the call succeeded
    char error[TB_ERROR_MAX];     // the D-Bus error's name otherwise
} tb_event;

/// Connects to the system bus (sd_bus_open_system: DBUS_SYSTEM_BUS_ADDRESS
/// is honoured), makes the eventfd tb_wake writes to, exports the
/// advertisement at adv_path (org.bluez.LEAdvertisement1) and watches
/// org.bluez. It believes a message for its sender alone: owner changes
/// from the bus driver, BlueZ's signals from org.bluez's current owner, and
/// method calls on its objects from that owner (others: AccessDenied).
/// bus_address: NULL for the system bus; a D-Bus address for tests only
/// (several services, each with its own system bus, on one BlueZoo's).
/// Returns 0 or a negative errno.
int tb_open(const char *adv_path, const char *bus_address, tb_bus **out);
/// Closes the connection (NULL: no-op).
void tb_close(tb_bus *bus);

/// Processes what the bus has, then waits up to timeout_usec for more or
/// for tb_wake. Returns 1 when woken by tb_wake, 0 otherwise, or a negative
/// errno when the connection is broken. (The signals are the service's.)
int tb_wait(tb_bus *bus, uint64_t timeout_usec);
/// Wakes tb_wait (from any thread): the service has something for the radio.
void tb_wake(tb_bus *bus);
/// Takes the oldest event into *ev: 1, or 0 when there is none.
int tb_next_event(tb_bus *bus, tb_event *ev);
/// Calls pending (sent, no reply yet).
int tb_pending_calls(const tb_bus *bus);

/// Whether org.bluez has an owner now (asked of the bus): 1, 0 or -errno.
/// Also notes the owner, whose signals and calls alone are then taken (the
/// bus driver's NameOwnerChanged follows it from then on). Call it once.
int tb_bluez_present(tb_bus *bus);

/// The 20 bytes the advertisement's ServiceData carries for fd6f from now on.
void tb_set_payload(tb_bus *bus, const uint8_t payload[TB_PAYLOAD_SIZE]);

/// The calls, each sent at once and answered by a TB_EV_REPLY (0 or -errno
/// when it could not be sent). adapter: "/org/bluez/hciN".
int tb_get_objects(tb_bus *bus);
int tb_register_adv(tb_bus *bus, const char *adapter);
int tb_unregister_adv(tb_bus *bus, const char *adapter);
/// Transport le, UUIDs [fd6f], DuplicateData true.
int tb_set_filter(tb_bus *bus, const char *adapter);
int tb_start_discovery(tb_bus *bus, const char *adapter);
int tb_stop_discovery(tb_bus *bus, const char *adapter);
int tb_remove_device(tb_bus *bus, const char *adapter, const char *device);

#ifdef __cplusplus
}
#endif
#endif
