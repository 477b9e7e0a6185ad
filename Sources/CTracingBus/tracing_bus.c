// encored's radio: its D-Bus side over sd-bus (see include/tracing_bus.h).
// Everything on the wire is sd-bus's: this file only says which objects,
// matches and calls there are, and reads the few properties the daemon uses.
#define _GNU_SOURCE
#include "tracing_bus.h"
#include <systemd/sd-bus.h>

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#define BLUEZ "org.bluez"
#define BUS_DRIVER "org.freedesktop.DBus"
#define ADAPTER_IFACE "org.bluez.Adapter1"
#define DEVICE_IFACE "org.bluez.Device1"
#define ADV_MANAGER_IFACE "org.bluez.LEAdvertisingManager1"
#define ADV_IFACE "org.bluez.LEAdvertisement1"
#define EN_UUID_FULL "0000fd6f-0000-1000-8000-00805f9b34fb"
// Calls to BlueZ: long enough for a busy daemon, short enough that a hung
// one does not stall the shutdown for long.
#define CALL_TIMEOUT_USEC (10ULL * 1000000ULL)
// Events beyond this many (a BlueZ cache of thousands of devices replayed
// at once) are dropped rather than grow memory without bound.
#define QUEUE_LIMIT 65536

struct tb_bus {
    sd_bus *bus;
    sd_bus_slot *vtable_slot;
    int wake_fd;   // eventfd: tb_wake from the service's threads
    char *adv_path;
    char *bluez_owner;   // unique name of org.bluez's owner, NULL when none
    uint8_t payload[TB_PAYLOAD_SIZE];
    tb_event *queue;
    size_t head, len, cap;
    int pending;
};

typedef struct {
    tb_bus *bus;
    int kind;
} call_context;

static void copy_text(char *dst, size_t size, const char *src) {
    if (size == 0) return;
    size_t n = src ? strnlen(src, size - 1) : 0;
    if (n) memcpy(dst, src, n);
    dst[n] = '\0';
}

static void push(tb_bus *b, const tb_event *ev) {
    if (b->len >= QUEUE_LIMIT) return;
    if (b->head + b->len == b->cap) {
        if (b->head > 0) {
            memmove(b->queue, b->queue + b->head, b->len * sizeof *b->queue);
            b->head = 0;
        } else {
            size_t cap = b->cap ? b->cap * 2 : 64;
            tb_event *q = realloc(b->queue, cap * sizeof *q);
            if (!q) return;
            b->queue = q;
            b->cap = cap;
        }
    }
    b->queue[b->head + b->len++] = *ev;
}

int tb_next_event(tb_bus *b, tb_event *ev) {
    if (!b || b->len == 0) return 0;
    *ev = b->queue[b->head++];
    if (--b->len == 0) b->head = 0;
    return 1;
}

int tb_pending_calls(const tb_bus *b) { return b ? b->pending : 0; }

// Whether the variant the message is at holds the given signature.
static int variant_holds(sd_bus_message *m, const char *signature) {
    char type;
    const char *contents;
    if (sd_bus_message_peek_type(m, &type, &contents) <= 0) return 0;
    return type == SD_BUS_TYPE_VARIANT && contents && strcmp(contents, signature) == 0;
}

// ServiceData (a{sv}, each value ay): the bytes of fd6f into ev.
static int read_service_data(sd_bus_message *m, tb_event *ev) {
    int r = sd_bus_message_enter_container(m, SD_BUS_TYPE_ARRAY, "{sv}");
    if (r < 0) return r;
    while ((r = sd_bus_message_enter_container(m, SD_BUS_TYPE_DICT_ENTRY, "sv")) > 0) {
        const char *uuid;
        if ((r = sd_bus_message_read_basic(m, 's', &uuid)) < 0) return r;
        if ((strcasecmp(uuid, EN_UUID_FULL) == 0 || strcasecmp(uuid, "fd6f") == 0) && variant_holds(m, "ay")) {
            const void *data;
            size_t size;
            if ((r = sd_bus_message_enter_container(m, SD_BUS_TYPE_VARIANT, "ay")) < 0) return r;
            if ((r = sd_bus_message_read_array(m, 'y', &data, &size)) < 0) return r;
            if ((r = sd_bus_message_exit_container(m)) < 0) return r;
            ev->has_service_data = 1;
            ev->service_data_len = size;
            memcpy(ev->service_data, data, size < TB_SERVICE_DATA_MAX ? size : TB_SERVICE_DATA_MAX);
        } else if ((r = sd_bus_message_skip(m, "v")) < 0) {
            return r;
        }
        if ((r = sd_bus_message_exit_container(m)) < 0) return r;
    }
    if (r < 0) return r;
    return sd_bus_message_exit_container(m);
}

// A property dictionary (a{sv}) of Adapter1 or Device1: the ones the daemon uses into ev.
static int read_properties(sd_bus_message *m, tb_event *ev) {
    int r = sd_bus_message_enter_container(m, SD_BUS_TYPE_ARRAY, "{sv}");
    if (r < 0) return r;
    while ((r = sd_bus_message_enter_container(m, SD_BUS_TYPE_DICT_ENTRY, "sv")) > 0) {
        const char *name;
        if ((r = sd_bus_message_read_basic(m, 's', &name)) < 0) return r;
        if (strcmp(name, "Powered") == 0 && variant_holds(m, "b")) {
            int powered;
            if ((r = sd_bus_message_read(m, "v", "b", &powered)) < 0) return r;
            ev->has_powered = 1;
            ev->powered = powered != 0;
        } else if (strcmp(name, "RSSI") == 0 && variant_holds(m, "n")) {
            int16_t rssi;
            if ((r = sd_bus_message_read(m, "v", "n", &rssi)) < 0) return r;
            ev->has_rssi = 1;
            ev->rssi = rssi;
        } else if (strcmp(name, "ServiceData") == 0 && variant_holds(m, "a{sv}")) {
            if ((r = sd_bus_message_enter_container(m, SD_BUS_TYPE_VARIANT, "a{sv}")) < 0) return r;
            if ((r = read_service_data(m, ev)) < 0) return r;
            if ((r = sd_bus_message_exit_container(m)) < 0) return r;
        } else if ((r = sd_bus_message_skip(m, "v")) < 0) {
            return r;
        }
        if ((r = sd_bus_message_exit_container(m)) < 0) return r;
    }
    if (r < 0) return r;
    return sd_bus_message_exit_container(m);
}

static int under_bluez(const char *path) { return path && strncmp(path, "/org/bluez/", 11) == 0; }

// One object's interfaces (a{sa{sv}}) as InterfacesAdded and
// GetManagedObjects give them: an event for an adapter or a device.
static int read_object(tb_bus *b, sd_bus_message *m, const char *path) {
    int r = sd_bus_message_enter_container(m, SD_BUS_TYPE_ARRAY, "{sa{sv}}");
    if (r < 0) return r;
    while ((r = sd_bus_message_enter_container(m, SD_BUS_TYPE_DICT_ENTRY, "sa{sv}")) > 0) {
        const char *iface;
        if ((r = sd_bus_message_read_basic(m, 's', &iface)) < 0) return r;
        int adapter = strcmp(iface, ADAPTER_IFACE) == 0, device = strcmp(iface, DEVICE_IFACE) == 0;
        if ((adapter || device) && under_bluez(path)) {
            tb_event ev = {0};
            ev.kind = adapter ? TB_EV_ADAPTER_ADDED : TB_EV_DEVICE;
            copy_text(ev.path, sizeof ev.path, path);
            if ((r = read_properties(m, &ev)) < 0) return r;
            push(b, &ev);
        } else if ((r = sd_bus_message_skip(m, "a{sv}")) < 0) {
            return r;
        }
        if ((r = sd_bus_message_exit_container(m)) < 0) return r;
    }
    if (r < 0) return r;
    return sd_bus_message_exit_container(m);
}

// Whether m comes from `expected` (a unique name, or the bus driver's
// name): the one check every message the daemon acts on passes. The bus
// daemon stamps each message with its sender's unique name (its own as
// "org.freedesktop.DBus"), so no peer can claim another's. Match rules do
// not do this: on a bus without kdbus, sd-bus lets a sender='well.known'
// match take any sender, and a unicast signal sent straight to the daemon
// needs no match at all.
static int sent_by(sd_bus_message *m, const char *expected) {
    const char *sender = sd_bus_message_get_sender(m);
    return expected && sender && strcmp(sender, expected) == 0;
}

// BlueZ's signals and calls: from org.bluez's current owner only (asked
// once at start, then followed through the bus driver's NameOwnerChanged).
static int from_bluez(tb_bus *b, sd_bus_message *m) { return sent_by(m, b->bluez_owner); }

static int on_interfaces_added(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    tb_bus *b = userdata;
    const char *path;
    if (!from_bluez(b, m) || sd_bus_message_read_basic(m, 'o', &path) < 0) return 0;
    (void)read_object(b, m, path);
    return 0;
}

static int on_interfaces_removed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    tb_bus *b = userdata;
    const char *path, *iface;
    if (!from_bluez(b, m) || sd_bus_message_read_basic(m, 'o', &path) < 0 || !under_bluez(path)) return 0;
    if (sd_bus_message_enter_container(m, SD_BUS_TYPE_ARRAY, "s") < 0) return 0;
    while (sd_bus_message_read_basic(m, 's', &iface) > 0) {
        tb_event ev = {0};
        if (strcmp(iface, ADAPTER_IFACE) == 0) ev.kind = TB_EV_ADAPTER_REMOVED;
        else if (strcmp(iface, DEVICE_IFACE) == 0) ev.kind = TB_EV_DEVICE_REMOVED;
        else continue;
        copy_text(ev.path, sizeof ev.path, path);
        push(b, &ev);
    }
    return 0;
}

static int on_properties_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    tb_bus *b = userdata;
    const char *path = sd_bus_message_get_path(m), *iface;
    if (!from_bluez(b, m) || !under_bluez(path) || sd_bus_message_read_basic(m, 's', &iface) < 0) return 0;
    int adapter = strcmp(iface, ADAPTER_IFACE) == 0, device = strcmp(iface, DEVICE_IFACE) == 0;
    if (!adapter && !device) return 0;
    tb_event ev = {0};
    copy_text(ev.path, sizeof ev.path, path);
    if (read_properties(m, &ev) < 0) return 0;
    if (adapter && ev.has_powered) {
        ev.kind = TB_EV_ADAPTER_POWERED;
        push(b, &ev);
    } else if (device && (ev.has_rssi || ev.has_service_data)) {
        ev.kind = TB_EV_DEVICE;
        push(b, &ev);
    }
    return 0;
}

static void set_owner(tb_bus *b, const char *owner) {
    free(b->bluez_owner);
    b->bluez_owner = owner && *owner ? strdup(owner) : NULL;
}

static int on_name_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    tb_bus *b = userdata;
    const char *name, *old_owner, *new_owner;
    if (!sent_by(m, BUS_DRIVER) || sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0 || strcmp(name, BLUEZ) != 0) return 0;
    tb_event ev = {0};
    if (*old_owner) {
        ev.kind = TB_EV_BLUEZ_GONE;
        push(b, &ev);
    }
    set_owner(b, new_owner);
    if (*new_owner) {
        ev.kind = TB_EV_BLUEZ_UP;
        push(b, &ev);
    }
    return 0;
}

// Every method call to the daemon (Release(), the advertisement's
// properties, introspection, Peer, on any path) from anyone but BlueZ's
// owner is refused here, before sd-bus dispatches it: a filter sees each
// incoming message first.
static int only_bluez_calls(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    tb_bus *b = userdata;
    if (sd_bus_message_is_method_call(m, NULL, NULL) <= 0 || from_bluez(b, m)) return 0;
    // Handled whether or not the error reply could be sent (a caller that
    // wants no reply gets none): a refused call never reaches the objects.
    (void)sd_bus_reply_method_errorf(m, SD_BUS_ERROR_ACCESS_DENIED, "only BlueZ (" BLUEZ ") may call encored's radio");
    return 1;
}

// The advertisement object: its properties and Release() (only_bluez_calls
// lets BlueZ's calls alone through).
static int adv_release(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    tb_bus *b = userdata;
    tb_event ev = {0};
    ev.kind = TB_EV_ADV_RELEASED;
    push(b, &ev);
    return sd_bus_reply_method_return(m, "");
}

static int adv_type(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply, void *userdata,
                    sd_bus_error *error) {
    (void)bus, (void)path, (void)iface, (void)prop, (void)userdata, (void)error;
    return sd_bus_message_append(reply, "s", "broadcast");
}

static int adv_uuids(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply, void *userdata,
                     sd_bus_error *error) {
    (void)bus, (void)path, (void)iface, (void)prop, (void)userdata, (void)error;
    return sd_bus_message_append(reply, "as", 1, "fd6f");
}

static int adv_service_data(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                            void *userdata, sd_bus_error *error) {
    (void)bus, (void)path, (void)iface, (void)prop, (void)error;
    tb_bus *b = userdata;
    int r;
    if ((r = sd_bus_message_open_container(reply, SD_BUS_TYPE_ARRAY, "{sv}")) < 0) return r;
    if ((r = sd_bus_message_open_container(reply, SD_BUS_TYPE_DICT_ENTRY, "sv")) < 0) return r;
    if ((r = sd_bus_message_append_basic(reply, 's', "fd6f")) < 0) return r;
    if ((r = sd_bus_message_open_container(reply, SD_BUS_TYPE_VARIANT, "ay")) < 0) return r;
    if ((r = sd_bus_message_append_array(reply, 'y', b->payload, sizeof b->payload)) < 0) return r;
    if ((r = sd_bus_message_close_container(reply)) < 0) return r;
    if ((r = sd_bus_message_close_container(reply)) < 0) return r;
    return sd_bus_message_close_container(reply);
}

// ENF's flags: LE General Discoverable.
static int adv_discoverable(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                            void *userdata, sd_bus_error *error) {
    (void)bus, (void)path, (void)iface, (void)prop, (void)userdata, (void)error;
    return sd_bus_message_append(reply, "b", 1);
}

// The advertising interval ENF asks for: 200 to 270 ms (BlueZ 5.65 and newer read these).
static int adv_interval(sd_bus *bus, const char *path, const char *iface, const char *prop, sd_bus_message *reply,
                        void *userdata, sd_bus_error *error) {
    (void)bus, (void)path, (void)iface, (void)userdata, (void)error;
    return sd_bus_message_append(reply, "u", (uint32_t)(strcmp(prop, "MinInterval") == 0 ? 200 : 270));
}

static const sd_bus_vtable adv_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Release", "", "", adv_release, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_PROPERTY("Type", "s", adv_type, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("ServiceUUIDs", "as", adv_uuids, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("ServiceData", "a{sv}", adv_service_data, 0, 0),
    SD_BUS_PROPERTY("Discoverable", "b", adv_discoverable, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("MinInterval", "u", adv_interval, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("MaxInterval", "u", adv_interval, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_VTABLE_END,
};

void tb_set_payload(tb_bus *b, const uint8_t payload[TB_PAYLOAD_SIZE]) { memcpy(b->payload, payload, TB_PAYLOAD_SIZE); }

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    call_context *c = userdata;
    tb_bus *b = c->bus;
    tb_event ev = {0};
    ev.kind = TB_EV_REPLY;
    ev.call = c->kind;
    free(c);
    b->pending--;
    const sd_bus_error *e = sd_bus_message_get_error(m);
    if (e) {
        copy_text(ev.error, sizeof ev.error, e->name ? e->name : "error");
    } else {
        ev.ok = 1;
        if (ev.call == TB_CALL_GET_OBJECTS && sd_bus_message_enter_container(m, SD_BUS_TYPE_ARRAY, "{oa{sa{sv}}}") > 0) {
            const char *path;
            while (sd_bus_message_enter_container(m, SD_BUS_TYPE_DICT_ENTRY, "oa{sa{sv}}") > 0) {
                if (sd_bus_message_read_basic(m, 'o', &path) < 0 || read_object(b, m, path) < 0 || sd_bus_message_exit_container(m) < 0) break;
            }
        }
    }
    push(b, &ev);
    return 0;
}

// Sends m (unref'd here) with its reply coming back as a TB_EV_REPLY of kind.
static int send_call(tb_bus *b, sd_bus_message *m, int kind) {
    call_context *c = malloc(sizeof *c);
    if (!c) {
        sd_bus_message_unref(m);
        return -ENOMEM;
    }
    c->bus = b;
    c->kind = kind;
    int r = sd_bus_call_async(b->bus, NULL, m, on_reply, c, CALL_TIMEOUT_USEC);
    sd_bus_message_unref(m);
    if (r < 0) {
        free(c);
        return r;
    }
    b->pending++;
    return 0;
}

static int new_call(tb_bus *b, const char *path, const char *iface, const char *member, sd_bus_message **m) {
    return sd_bus_message_new_method_call(b->bus, m, BLUEZ, path, iface, member);
}

int tb_get_objects(tb_bus *b) {
    sd_bus_message *m;
    int r = new_call(b, "/", "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", &m);
    return r < 0 ? r : send_call(b, m, TB_CALL_GET_OBJECTS);
}

int tb_register_adv(tb_bus *b, const char *adapter) {
    sd_bus_message *m;
    int r = new_call(b, adapter, ADV_MANAGER_IFACE, "RegisterAdvertisement", &m);
    if (r < 0) return r;
    if ((r = sd_bus_message_append(m, "oa{sv}", b->adv_path, 0)) < 0) {
        sd_bus_message_unref(m);
        return r;
    }
    return send_call(b, m, TB_CALL_REGISTER_ADV);
}

int tb_unregister_adv(tb_bus *b, const char *adapter) {
    sd_bus_message *m;
    int r = new_call(b, adapter, ADV_MANAGER_IFACE, "UnregisterAdvertisement", &m);
    if (r < 0) return r;
    if ((r = sd_bus_message_append(m, "o", b->adv_path)) < 0) {
        sd_bus_message_unref(m);
        return r;
    }
    return send_call(b, m, TB_CALL_UNREGISTER_ADV);
}

int tb_set_filter(tb_bus *b, const char *adapter) {
    sd_bus_message *m;
    int r = new_call(b, adapter, ADAPTER_IFACE, "SetDiscoveryFilter", &m);
    if (r < 0) return r;
    // DuplicateData: every advertisement heard is reported, not only the first (RSSI for each).
    r = sd_bus_message_append(m, "a{sv}", 3, "Transport", "s", "le", "UUIDs", "as", 1, EN_UUID_FULL, "DuplicateData", "b", 1);
    if (r < 0) {
        sd_bus_message_unref(m);
        return r;
    }
    return send_call(b, m, TB_CALL_SET_FILTER);
}

static int adapter_call(tb_bus *b, const char *adapter, const char *member, int kind) {
    sd_bus_message *m;
    int r = new_call(b, adapter, ADAPTER_IFACE, member, &m);
    return r < 0 ? r : send_call(b, m, kind);
}

int tb_start_discovery(tb_bus *b, const char *adapter) { return adapter_call(b, adapter, "StartDiscovery", TB_CALL_START_DISCOVERY); }

int tb_stop_discovery(tb_bus *b, const char *adapter) { return adapter_call(b, adapter, "StopDiscovery", TB_CALL_STOP_DISCOVERY); }

int tb_remove_device(tb_bus *b, const char *adapter, const char *device) {
    sd_bus_message *m;
    int r = new_call(b, adapter, ADAPTER_IFACE, "RemoveDevice", &m);
    if (r < 0) return r;
    if ((r = sd_bus_message_append(m, "o", device)) < 0) {
        sd_bus_message_unref(m);
        return r;
    }
    return send_call(b, m, TB_CALL_REMOVE_DEVICE);
}

int tb_bluez_present(tb_bus *b) {
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    int r = sd_bus_call_method(b->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", &error,
                               &reply, "s", BLUEZ);
    if (r < 0) {
        int absent = sd_bus_error_has_name(&error, "org.freedesktop.DBus.Error.NameHasNoOwner");
        sd_bus_error_free(&error);
        if (absent) set_owner(b, NULL);
        return absent ? 0 : r;
    }
    const char *owner;
    r = sd_bus_message_read_basic(reply, 's', &owner);
    if (r >= 0) set_owner(b, owner);
    sd_bus_message_unref(reply);
    return r < 0 ? r : 1;
}

static int open_bus(const char *address, sd_bus **out) {
    if (!address) return sd_bus_open_system(out);
    sd_bus *bus = NULL;
    int r;
    if ((r = sd_bus_new(&bus)) < 0) return r;
    if ((r = sd_bus_set_address(bus, address)) < 0 || (r = sd_bus_set_bus_client(bus, 1)) < 0 || (r = sd_bus_start(bus)) < 0) {
        sd_bus_unref(bus);
        return r;
    }
    *out = bus;
    return 0;
}

int tb_open(const char *adv_path, const char *bus_address, tb_bus **out) {
    tb_bus *b = calloc(1, sizeof *b);
    if (!b) return -ENOMEM;
    b->wake_fd = -1;
    int r;
    if (!(b->adv_path = strdup(adv_path))) { r = -ENOMEM; goto fail; }
    if ((b->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) { r = -errno; goto fail; }
    if ((r = open_bus(bus_address, &b->bus)) < 0) goto fail;
    if ((r = sd_bus_add_filter(b->bus, NULL, only_bluez_calls, b)) < 0) goto fail;
    if ((r = sd_bus_add_object_vtable(b->bus, &b->vtable_slot, adv_path, ADV_IFACE, adv_vtable, b)) < 0) goto fail;
    // The matches only ask the bus for the signals; each handler checks the
    // sender itself (sent_by), since a match's sender= filters nothing here.
    if ((r = sd_bus_add_match(b->bus, NULL,
                              "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                              "member='NameOwnerChanged',arg0='" BLUEZ "'",
                              on_name_owner_changed, b)) < 0) goto fail;
    if ((r = sd_bus_add_match(b->bus, NULL, "type='signal',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesAdded'",
                              on_interfaces_added, b)) < 0) goto fail;
    if ((r = sd_bus_add_match(b->bus, NULL, "type='signal',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesRemoved'",
                              on_interfaces_removed, b)) < 0) goto fail;
    if ((r = sd_bus_add_match(b->bus, NULL,
                              "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
                              "path_namespace='/org/bluez'",
                              on_properties_changed, b)) < 0) goto fail;
    *out = b;
    return 0;
fail:
    tb_close(b);
    return r;
}

void tb_close(tb_bus *b) {
    if (!b) return;
    sd_bus_slot_unref(b->vtable_slot);
    if (b->bus) sd_bus_flush_close_unref(b->bus);
    if (b->wake_fd >= 0) close(b->wake_fd);
    free(b->adv_path);
    free(b->bluez_owner);
    free(b->queue);
    free(b);
}

static uint64_t monotonic_usec(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000ULL;
}

static int process_all(tb_bus *b) {
    int r;
    while ((r = sd_bus_process(b->bus, NULL)) > 0) {}
    return r;
}

static int take_wake(tb_bus *b) {
    uint64_t count;
    return read(b->wake_fd, &count, sizeof count) == (ssize_t)sizeof count;
}

void tb_wake(tb_bus *b) {
    uint64_t one = 1;
    if (b) (void)!write(b->wake_fd, &one, sizeof one);
}

int tb_wait(tb_bus *b, uint64_t timeout_usec) {
    int r = process_all(b);
    if (r < 0) return r;
    if (take_wake(b)) return 1;
    uint64_t until = UINT64_MAX, now = monotonic_usec();
    if (sd_bus_get_timeout(b->bus, &until) >= 0 && until != UINT64_MAX) {
        uint64_t bus_wait = until > now ? until - now : 0;
        if (bus_wait < timeout_usec) timeout_usec = bus_wait;
    }
    int events = sd_bus_get_events(b->bus);
    if (events < 0) return events;
    struct pollfd fds[2] = {{.fd = sd_bus_get_fd(b->bus), .events = (short)events}, {.fd = b->wake_fd, .events = POLLIN}};
    struct timespec ts = {.tv_sec = (time_t)(timeout_usec / 1000000ULL), .tv_nsec = (long)(timeout_usec % 1000000ULL) * 1000L};
    if (ppoll(fds, 2, &ts, NULL) < 0 && errno != EINTR) return -errno;
    if (fds[1].revents & POLLIN && take_wake(b)) return 1;
    r = process_all(b);
    return r < 0 ? r : 0;
}
