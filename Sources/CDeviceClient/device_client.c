// See device_client.h. A thin client: it builds the calls and reads the
// answers of the interface docs/org.encore.Exposure1.xml describes.
#include "device_client.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-bus.h>

#include "library_loader.h"

// libsystemd is loaded by the first dc_open, not linked: it brings its own
// libraries (gcrypt, lzma, zstd, lz4, cap), whose mapping and relocation
// would cost every start of the tool, which needs the bus for `encore
// device` alone (CLibraryLoader). Missing or unusable, it is dc_open's
// error.
#define DC_SONAME "libsystemd.so.0"

// Every sd-bus function called. Their types come from sd-bus.h through
// __typeof__, which takes no address: no sd_* symbol is referenced.
#define DC_FUNCTIONS(X)                                                                                  \
    X(sd_bus_open_system) X(sd_bus_set_allow_interactive_authorization) X(sd_bus_set_method_call_timeout) \
    X(sd_bus_flush_close_unref) X(sd_bus_call) X(sd_bus_error_free) X(sd_bus_error_is_set)               \
    X(sd_bus_message_new_method_call) X(sd_bus_message_unref) X(sd_bus_message_append)                   \
    X(sd_bus_message_appendv) X(sd_bus_message_open_container) X(sd_bus_message_close_container)         \
    X(sd_bus_message_enter_container) X(sd_bus_message_exit_container) X(sd_bus_message_read)            \
    X(sd_bus_message_peek_type) X(sd_bus_message_skip)

static struct {
#define DC_FIELD(name) __typeof__(name) *name;
    DC_FUNCTIONS(DC_FIELD)
#undef DC_FIELD
} lib;

#define DC_NAME(name) #name,
static const char *const lib_names[] = {DC_FUNCTIONS(DC_NAME)};
#undef DC_NAME
_Static_assert(sizeof lib == sizeof lib_names / sizeof lib_names[0] * sizeof(void *), "one function pointer a name");

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded = 0;
static char load_error[512] = "libsystemd was not loaded";

// The handle stays open for the life of the process.
static void load(void) {
    loaded = enc_library_load(DC_SONAME, "libsystemd", "libsystemd0", lib_names, sizeof lib_names / sizeof lib_names[0], &lib,
                              load_error, sizeof load_error) != NULL;
}

#define NAME "org.encore.Exposure"
#define PATH "/org/encore/Exposure"
#define IFACE "org.encore.Exposure1"

struct dc_client {
    sd_bus *bus;
};

static int fail(dc_error *err, int r, const sd_bus_error *e, const char *what) {
    if (e && lib.sd_bus_error_is_set(e)) {
        snprintf(err->name, sizeof err->name, "%s", e->name);
        snprintf(err->message, sizeof err->message, "%s", e->message ? e->message : "");
    } else {
        snprintf(err->name, sizeof err->name, "%s", "");
        snprintf(err->message, sizeof err->message, "%s: %s", what, strerror(r < 0 ? -r : r));
    }
    return r < 0 ? r : -EIO;
}

int dc_open(uint64_t timeout_sec, dc_client **out, dc_error *err) {
    pthread_once(&load_once, load);
    if (!loaded) {
        snprintf(err->name, sizeof err->name, "%s", "");
        snprintf(err->message, sizeof err->message, "%s", load_error);
        return -ELIBACC;
    }
    dc_client *c = calloc(1, sizeof *c);
    if (!c) return fail(err, -ENOMEM, NULL, "out of memory");
    int r = lib.sd_bus_open_system(&c->bus);
    if (r < 0) {
        free(c);
        return fail(err, r, NULL, "cannot connect to the D-Bus system bus");
    }
    lib.sd_bus_set_allow_interactive_authorization(c->bus, 1);
    lib.sd_bus_set_method_call_timeout(c->bus, timeout_sec * 1000000ULL);
    *out = c;
    return 0;
}

void dc_close(dc_client *c) {
    if (!c) return;
    lib.sd_bus_flush_close_unref(c->bus);
    free(c);
}

/// Sends `m` (consumed) and hands the reply back (NULL: not wanted).
static int send_call(dc_client *c, sd_bus_message *m, sd_bus_message **reply, dc_error *err, const char *what) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    int r = lib.sd_bus_call(c->bus, m, 0, &e, reply);
    lib.sd_bus_message_unref(m);
    if (r < 0) r = fail(err, r, &e, what);
    lib.sd_bus_error_free(&e);
    return r < 0 ? r : 0;
}

static int new_call(dc_client *c, const char *member, sd_bus_message **m, dc_error *err) {
    int r = lib.sd_bus_message_new_method_call(c->bus, m, NAME, PATH, IFACE, member);
    return r < 0 ? fail(err, r, NULL, member) : 0;
}

static int simple(dc_client *c, const char *member, dc_error *err, const char *types, ...) {
    sd_bus_message *m = NULL;
    int r = new_call(c, member, &m, err);
    if (r < 0) return r;
    if (types) {
        va_list ap;
        va_start(ap, types);
        r = lib.sd_bus_message_appendv(m, types, ap);
        va_end(ap);
        if (r < 0) {
            lib.sd_bus_message_unref(m);
            return fail(err, r, NULL, member);
        }
    }
    return send_call(c, m, NULL, err, member);
}

static void copy(char *dst, size_t size, const char *src) { snprintf(dst, size, "%s", src ? src : ""); }

int dc_get_status(dc_client *c, dc_status *out, dc_error *err) {
    sd_bus_message *m = NULL, *reply = NULL;
    int r = lib.sd_bus_message_new_method_call(c->bus, &m, NAME, PATH, "org.freedesktop.DBus.Properties", "GetAll");
    if (r < 0) return fail(err, r, NULL, "GetAll");
    if ((r = lib.sd_bus_message_append(m, "s", IFACE)) < 0) {
        lib.sd_bus_message_unref(m);
        return fail(err, r, NULL, "GetAll");
    }
    if ((r = send_call(c, m, &reply, err, "GetAll")) < 0) return r;
    dc_status s = {0};
    if ((r = lib.sd_bus_message_enter_container(reply, 'a', "{sv}")) < 0) goto bad;
    while ((r = lib.sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
        const char *name = NULL, *contents = NULL, *text = NULL;
        char type = 0;
        if ((r = lib.sd_bus_message_read(reply, "s", &name)) < 0) goto bad;
        if ((r = lib.sd_bus_message_peek_type(reply, &type, &contents)) < 0) goto bad;
        if (contents && !strcmp(contents, "s")) {
            if ((r = lib.sd_bus_message_read(reply, "v", "s", &text)) < 0) goto bad;
            if (!strcmp(name, "State")) copy(s.state, sizeof s.state, text);
            else if (!strcmp(name, "RiskLevel")) copy(s.risk_level, sizeof s.risk_level, text);
            else if (!strcmp(name, "LastExposureDay")) copy(s.last_exposure_day, sizeof s.last_exposure_day, text);
            else if (!strcmp(name, "TestState")) copy(s.test_state, sizeof s.test_state, text);
        } else if (contents && !strcmp(contents, "t")) {
            uint64_t t = 0;
            if ((r = lib.sd_bus_message_read(reply, "v", "t", &t)) < 0) goto bad;
            if (!strcmp(name, "LastSync")) s.last_sync = t;
            else if (!strcmp(name, "LastCheck")) s.last_check = t;
            else if (!strcmp(name, "NextSync")) s.next_sync = t;
        } else if (contents && !strcmp(contents, "b")) {
            int b = 0;
            if ((r = lib.sd_bus_message_read(reply, "v", "b", &b)) < 0) goto bad;
            if (!strcmp(name, "Enabled")) s.enabled = b != 0;
        } else if ((r = lib.sd_bus_message_skip(reply, "v")) < 0) {
            goto bad;   // a property of a newer service: not ours to read
        }
        if ((r = lib.sd_bus_message_exit_container(reply)) < 0) goto bad;
    }
    if (r < 0) goto bad;
    lib.sd_bus_message_unref(reply);
    *out = s;
    return 0;
bad:
    lib.sd_bus_message_unref(reply);
    return fail(err, r, NULL, "the service's properties could not be read");
}

int dc_set_enabled(dc_client *c, int enabled, dc_error *err) { return simple(c, "SetEnabled", err, "b", enabled != 0); }
int dc_sync_now(dc_client *c, dc_error *err) { return simple(c, "SyncNow", err, NULL); }
int dc_register_test(dc_client *c, const char *code, dc_error *err) { return simple(c, "RegisterTest", err, "s", code); }
int dc_check_out(dc_client *c, const char *id, dc_error *err) { return simple(c, "CheckOut", err, "s", id); }
int dc_delete_all_data(dc_client *c, dc_error *err) { return simple(c, "DeleteAllData", err, NULL); }

int dc_submit_keys(dc_client *c, const char *onset, int symptomatic, dc_error *err) {
    sd_bus_message *m = NULL;
    int r = new_call(c, "SubmitKeys", &m, err);
    if (r < 0) return r;
    if ((r = lib.sd_bus_message_open_container(m, 'a', "{sv}")) < 0) goto bad;
    if (onset && (r = lib.sd_bus_message_append(m, "{sv}", "onset", "s", onset)) < 0) goto bad;
    if (symptomatic >= 0 && (r = lib.sd_bus_message_append(m, "{sv}", "symptomatic", "b", symptomatic != 0)) < 0) goto bad;
    if ((r = lib.sd_bus_message_close_container(m)) < 0) goto bad;
    return send_call(c, m, NULL, err, "SubmitKeys");
bad:
    lib.sd_bus_message_unref(m);
    return fail(err, r, NULL, "SubmitKeys");
}

int dc_check_in(dc_client *c, const char *qr, char *id, size_t id_size, dc_error *err) {
    sd_bus_message *m = NULL, *reply = NULL;
    int r = new_call(c, "CheckIn", &m, err);
    if (r < 0) return r;
    if ((r = lib.sd_bus_message_append(m, "s", qr)) < 0) {
        lib.sd_bus_message_unref(m);
        return fail(err, r, NULL, "CheckIn");
    }
    if ((r = send_call(c, m, &reply, err, "CheckIn")) < 0) return r;
    const char *answer = NULL;
    r = lib.sd_bus_message_read(reply, "s", &answer);
    if (r >= 0) copy(id, id_size, answer);
    lib.sd_bus_message_unref(reply);
    return r < 0 ? fail(err, r, NULL, "CheckIn's answer") : 0;
}
