// encored's side of the system bus, through sd-bus (libsystemd): the
// org.encore.Exposure1 object at /org/encore/Exposure under the name
// org.encore.Exposure, the polkit questions it asks, and the bus driver's
// word that the name was lost. Plain C the Swift service calls: each
// incoming call (methods, and the property reads, which polkit guards too)
// becomes an event with an id, answered later by id, so that nothing waits
// on polkit or on the work a call starts. The service's logic stays in
// Swift. Private to encored: never linked into libencore.so.
//
// One eb_bus per process, driven from one thread; eb_wake alone may be
// called from any thread.
#ifndef ENCORE_EXPOSURE_BUS_H
#define ENCORE_EXPOSURE_BUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct eb_bus eb_bus;

typedef enum {
    EB_EV_CALL = 1,     // a method call (or a property read) to answer by id
    EB_EV_AUTH,         // polkit's answer to eb_check_auth for id
    EB_EV_NAME_LOST,    // the bus driver says org.encore.Exposure is no longer ours
} eb_event_kind;

enum { EB_NAME_MAX = 256, EB_TEXT_MAX = 4096, EB_ERROR_MAX = 256 };

typedef struct {
    int kind;                   // eb_event_kind
    uint64_t id;
    // EB_EV_CALL: the member ("SetEnabled", ..., "Get", "GetAll"), the
    // caller's unique bus name as the bus daemon stamped it.
    char member[64];
    char sender[EB_NAME_MAX];
    // The call's arguments: RegisterTest's code, CheckIn's QR code,
    // CheckOut's id, Get's property name; SetEnabled's flag.
    char text[EB_TEXT_MAX];
    int text_truncated;         // the string argument did not fit: refuse it
    int flag;
    // SubmitKeys' dictionary: onset (s) and symptomatic (b), each when given;
    // unknown names or wrong types are refused before the event is made.
    int has_onset;
    char onset[16];
    int has_symptomatic, symptomatic;
    // EB_EV_AUTH: 1 when polkit authorised; otherwise the reason.
    int allowed;
    char error[EB_ERROR_MAX];
} eb_event;

/// The properties' values (copied by eb_open and eb_set_properties, which
/// compares them with the last ones to emit PropertiesChanged).
typedef struct {
    int enabled;
    const char *state;
    const char *risk_level;
    const char *last_exposure_day;
    uint64_t last_sync, last_check, next_sync;
    const char *test_state;
} eb_properties;

/// Connects to the system bus (DBUS_SYSTEM_BUS_ADDRESS is honoured), blocks
/// SIGTERM and SIGINT into a signalfd, exports the object with `initial`
/// and requests the name. -EEXIST: another process owns the name.
int eb_open(const eb_properties *initial, eb_bus **out);
void eb_close(eb_bus *bus);

/// Processes what the bus has, then waits up to timeout_usec for more, a
/// signal or eb_wake. 1 when SIGTERM or SIGINT arrived, 0, or -errno.
int eb_wait(eb_bus *bus, uint64_t timeout_usec);
/// Wakes eb_wait (any thread): a worker's result is waiting.
void eb_wake(eb_bus *bus);
/// The oldest event into *ev: 1, or 0 when there is none.
int eb_next_event(eb_bus *bus, eb_event *ev);

/// Asks polkit whether `sender` may do `action` (subject system-bus-name);
/// the answer comes as EB_EV_AUTH with `id`. interactive: polkit may ask
/// the user to authenticate. 0 or -errno (then no event comes).
int eb_check_auth(eb_bus *bus, uint64_t id, const char *sender, const char *action, int interactive);

/// The answers to call `id` (each frees the call; an unknown id is -ENOENT).
int eb_reply_empty(eb_bus *bus, uint64_t id);
int eb_reply_string(eb_bus *bus, uint64_t id, const char *value);
int eb_reply_error(eb_bus *bus, uint64_t id, const char *name, const char *message);
/// Get's answer (the property named in the call) or GetAll's, from the values now.
int eb_reply_properties(eb_bus *bus, uint64_t id);

/// The new values: PropertiesChanged for those that changed (the health
/// ones, RiskLevel, LastExposureDay and TestState, as invalidated names only).
int eb_set_properties(eb_bus *bus, const eb_properties *values);

const char *eb_strerror(int negative_errno);

#ifdef __cplusplus
}
#endif
#endif
