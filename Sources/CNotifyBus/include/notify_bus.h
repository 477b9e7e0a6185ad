// encore-notify's two buses, through sd-bus: on the system bus it follows
// encored (org.encore.Exposure: its owner, its PropertiesChanged, taken
// only from that owner) and reads its properties; on the session bus it
// posts and closes desktop notifications (org.freedesktop.Notifications).
// Either bus may go away; the agent connects again. Plain C the Swift
// agent calls; its logic (what to tell the user, when) stays in Swift.
// One nb_agent per process, driven from one thread.
#ifndef ENCORE_NOTIFY_BUS_H
#define ENCORE_NOTIFY_BUS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nb_agent nb_agent;

typedef enum {
    NB_EV_SERVICE_UP = 1,   // org.encore.Exposure has an owner (at the start, or a new one)
    NB_EV_SERVICE_GONE,     // it has none
    NB_EV_CHANGED,          // the owner signalled PropertiesChanged: read them again
    NB_EV_PROPERTIES,       // nb_read_properties' answer (ok, or error)
    NB_EV_NOTIFIED,         // nb_notify's answer: tag, notification_id (ok, or error)
    NB_EV_SYSTEM_LOST,      // the system bus connection broke
    NB_EV_SESSION_LOST,     // the session bus connection broke
} nb_event_kind;

typedef struct {
    int kind;
    int ok;
    char error[256];
    // NB_EV_PROPERTIES
    char state[32], risk_level[32], test_state[32];
    // NB_EV_NOTIFIED
    int tag;
    uint32_t notification_id;
} nb_event;

/// Blocks SIGTERM and SIGINT into a signalfd; no bus yet.
int nb_open(nb_agent **out);
void nb_close(nb_agent *agent);

/// Connects (again): 0 or -errno. The system bus's connection asks at once
/// who owns org.encore.Exposure (NB_EV_SERVICE_UP or _GONE follows).
int nb_connect_system(nb_agent *agent);
int nb_connect_session(nb_agent *agent);
int nb_system_connected(const nb_agent *agent);
int nb_session_connected(const nb_agent *agent);

/// Processes both buses, then waits up to timeout_usec. 1 on SIGTERM or
/// SIGINT, 0 otherwise (a broken bus is an event, not an error).
int nb_wait(nb_agent *agent, uint64_t timeout_usec);
int nb_next_event(nb_agent *agent, nb_event *ev);

/// GetAll of org.encore.Exposure1 from the current owner: NB_EV_PROPERTIES.
int nb_read_properties(nb_agent *agent);
/// Notify("encore", replaces_id, "", summary, body, [], {urgency: byte}, -1):
/// NB_EV_NOTIFIED with `tag`. urgency: 0 low, 1 normal, 2 critical.
int nb_notify(nb_agent *agent, int tag, uint32_t replaces_id, const char *summary, const char *body, int urgency);
int nb_close_notification(nb_agent *agent, uint32_t id);

const char *nb_strerror(int negative_errno);

#ifdef __cplusplus
}
#endif
#endif
