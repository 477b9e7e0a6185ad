// See notify_bus.h.
#define _GNU_SOURCE
#include "notify_bus.h"
#include "bus_queue.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#define SERVICE "org.encore.Exposure"
#define SERVICE_PATH "/org/encore/Exposure"
#define SERVICE_IFACE "org.encore.Exposure1"
#define DRIVER "org.freedesktop.DBus"
#define NOTIFICATIONS "org.freedesktop.Notifications"

struct nb_agent {
    sd_bus *system, *session;
    int signal_fd;
    char owner[256];   // the unique name owning org.encore.Exposure now, "" for none
    bq_queue events;
};

static nb_event *push(nb_agent *a, int kind) {
    nb_event *ev = bq_push(&a->events);
    if (ev) ev->kind = kind;
    return ev;
}

int nb_next_event(nb_agent *a, nb_event *ev) { return bq_pop(&a->events, ev); }

static void set_owner(nb_agent *a, const char *owner) {
    bool had = a->owner[0] != 0;
    snprintf(a->owner, sizeof a->owner, "%s", owner ? owner : "");
    if (a->owner[0]) push(a, NB_EV_SERVICE_UP);
    else if (had) push(a, NB_EV_SERVICE_GONE);
}

// MARK: the system bus

/// NameOwnerChanged of org.encore.Exposure, from the bus driver alone.
static int on_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    nb_agent *a = userdata;
    const char *sender = sd_bus_message_get_sender(m), *name = NULL, *old_owner = NULL, *new_owner = NULL;
    if (!sender || strcmp(sender, DRIVER)) return 0;
    if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0 || strcmp(name, SERVICE)) return 0;
    set_owner(a, new_owner);
    return 0;
}

/// PropertiesChanged of the service's interface, from its owner alone.
static int on_properties_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    nb_agent *a = userdata;
    const char *sender = sd_bus_message_get_sender(m), *iface = NULL;
    if (!sender || !a->owner[0] || strcmp(sender, a->owner)) return 0;
    if (sd_bus_message_read(m, "s", &iface) < 0 || strcmp(iface, SERVICE_IFACE)) return 0;
    push(a, NB_EV_CHANGED);
    return 0;
}

static int on_get_owner(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    nb_agent *a = userdata;
    const char *owner = NULL;
    if (sd_bus_message_is_method_error(m, NULL) || sd_bus_message_read(m, "s", &owner) < 0) owner = "";
    set_owner(a, owner);
    if (!a->owner[0]) push(a, NB_EV_SERVICE_GONE);
    return 0;
}

int nb_connect_system(nb_agent *a) {
    sd_bus_flush_close_unref(a->system);
    a->system = NULL;
    a->owner[0] = 0;
    sd_bus *bus = NULL;
    int r = sd_bus_open_system(&bus);
    if (r < 0) return r;
    // Floating matches: they live as long as the connection.
    if ((r = sd_bus_add_match(bus, NULL,
                              "type='signal',sender='" DRIVER "',interface='" DRIVER "',member='NameOwnerChanged',arg0='" SERVICE "'",
                              on_owner_changed, a)) < 0) goto fail;
    if ((r = sd_bus_add_match(bus, NULL,
                              "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path='" SERVICE_PATH "'",
                              on_properties_changed, a)) < 0) goto fail;
    if ((r = sd_bus_call_method_async(bus, NULL, DRIVER, "/org/freedesktop/DBus", DRIVER, "GetNameOwner", on_get_owner, a, "s", SERVICE)) < 0)
        goto fail;
    a->system = bus;
    return 0;
fail:
    sd_bus_flush_close_unref(bus);
    return r;
}

static void copy(char *dst, size_t size, const char *src) { snprintf(dst, size, "%s", src ? src : ""); }

static int on_properties(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    nb_agent *a = userdata;
    nb_event *ev = push(a, NB_EV_PROPERTIES);
    if (!ev) return 0;
    const sd_bus_error *e = sd_bus_message_get_error(m);
    if (e) {
        snprintf(ev->error, sizeof ev->error, "%s", e->name ? e->name : "an error");
        return 0;
    }
    int r = sd_bus_message_enter_container(m, 'a', "{sv}");
    while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
        const char *name = NULL, *contents = NULL, *text = NULL;
        char type = 0;
        if ((r = sd_bus_message_read(m, "s", &name)) < 0) break;
        if ((r = sd_bus_message_peek_type(m, &type, &contents)) < 0) break;
        if (contents && !strcmp(contents, "s")) {
            if ((r = sd_bus_message_read(m, "v", "s", &text)) < 0) break;
            if (!strcmp(name, "State")) copy(ev->state, sizeof ev->state, text);
            else if (!strcmp(name, "RiskLevel")) copy(ev->risk_level, sizeof ev->risk_level, text);
            else if (!strcmp(name, "TestState")) copy(ev->test_state, sizeof ev->test_state, text);
        } else if ((r = sd_bus_message_skip(m, "v")) < 0) {
            break;
        }
        r = sd_bus_message_exit_container(m);
    }
    if (r < 0) snprintf(ev->error, sizeof ev->error, "the properties could not be read (%s)", strerror(-r));
    else ev->ok = 1;
    return 0;
}

int nb_read_properties(nb_agent *a) {
    if (!a->system || !a->owner[0]) return -ENOTCONN;
    // To the unique name: an answer from a new owner is not mistaken for the old one's.
    return sd_bus_call_method_async(a->system, NULL, a->owner, SERVICE_PATH, "org.freedesktop.DBus.Properties", "GetAll", on_properties, a, "s",
                                    SERVICE_IFACE);
}

// MARK: the session bus

int nb_connect_session(nb_agent *a) {
    sd_bus_flush_close_unref(a->session);
    a->session = NULL;
    return sd_bus_open_user(&a->session);
}

typedef struct {
    nb_agent *agent;
    int tag;
} notify_question;

static int on_notified(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    notify_question *q = userdata;
    nb_event *ev = push(q->agent, NB_EV_NOTIFIED);
    if (ev) {
        ev->tag = q->tag;
        const sd_bus_error *e = sd_bus_message_get_error(m);
        if (e) snprintf(ev->error, sizeof ev->error, "%s", e->name ? e->name : "an error");
        else if (sd_bus_message_read(m, "u", &ev->notification_id) >= 0) ev->ok = 1;
    }
    free(q);
    return 0;
}

int nb_notify(nb_agent *a, int tag, uint32_t replaces_id, const char *summary, const char *body, int urgency) {
    if (!a->session) return -ENOTCONN;
    notify_question *q = calloc(1, sizeof *q);
    if (!q) return -ENOMEM;
    q->agent = a;
    q->tag = tag;
    int r = sd_bus_call_method_async(a->session, NULL, NOTIFICATIONS, "/org/freedesktop/Notifications", NOTIFICATIONS, "Notify", on_notified, q,
                                     "susssasa{sv}i", "encore", replaces_id, "", summary, body, 0, 1, "urgency", "y", (uint8_t)urgency, -1);
    if (r < 0) free(q);
    return r < 0 ? r : 0;
}

int nb_close_notification(nb_agent *a, uint32_t id) {
    if (!a->session) return -ENOTCONN;
    return sd_bus_call_method_async(a->session, NULL, NOTIFICATIONS, "/org/freedesktop/Notifications", NOTIFICATIONS, "CloseNotification", NULL,
                                    NULL, "u", id);
}

int nb_system_connected(const nb_agent *a) { return a->system != NULL; }
int nb_session_connected(const nb_agent *a) { return a->session != NULL; }

// MARK: the loop

int nb_open(nb_agent **out) {
    nb_agent *a = calloc(1, sizeof *a);
    if (!a) return -ENOMEM;
    a->events.size = sizeof(nb_event);
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    if (pthread_sigmask(SIG_BLOCK, &mask, NULL) != 0 || (a->signal_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
        int r = -errno;
        free(a);
        return r;
    }
    *out = a;
    return 0;
}

void nb_close(nb_agent *a) {
    if (!a) return;
    sd_bus_flush_close_unref(a->system);
    sd_bus_flush_close_unref(a->session);
    bq_clear(&a->events);
    close(a->signal_fd);
    free(a);
}

/// Processes a bus; a broken one is closed and reported.
static void process(nb_agent *a, sd_bus **bus, int lost_kind) {
    if (!*bus) return;
    int r;
    while ((r = sd_bus_process(*bus, NULL)) > 0) {}
    if (r < 0) {
        sd_bus_flush_close_unref(*bus);
        *bus = NULL;
        if (lost_kind == NB_EV_SYSTEM_LOST) a->owner[0] = 0;
        push(a, lost_kind);
    }
}

static bool take_signal(nb_agent *a) {
    struct signalfd_siginfo info;
    return read(a->signal_fd, &info, sizeof info) == (ssize_t)sizeof info;
}

int nb_wait(nb_agent *a, uint64_t timeout_usec) {
    process(a, &a->system, NB_EV_SYSTEM_LOST);
    process(a, &a->session, NB_EV_SESSION_LOST);
    if (take_signal(a)) return 1;
    if (!bq_empty(&a->events)) timeout_usec = 0;
    struct pollfd fds[3] = {{.fd = a->signal_fd, .events = POLLIN}, {.fd = -1}, {.fd = -1}};
    sd_bus *buses[2] = {a->system, a->session};
    for (int i = 0; i < 2; i++) {
        if (!buses[i]) continue;
        int events = sd_bus_get_events(buses[i]);
        fds[i + 1].fd = sd_bus_get_fd(buses[i]);
        fds[i + 1].events = (short)(events < 0 ? POLLIN : events);
        uint64_t until = UINT64_MAX;
        struct timespec now_ts;
        clock_gettime(CLOCK_MONOTONIC, &now_ts);
        uint64_t now = (uint64_t)now_ts.tv_sec * 1000000ULL + (uint64_t)now_ts.tv_nsec / 1000ULL;
        if (sd_bus_get_timeout(buses[i], &until) >= 0 && until != UINT64_MAX) {
            uint64_t w = until > now ? until - now : 0;
            if (w < timeout_usec) timeout_usec = w;
        }
    }
    struct timespec ts = {.tv_sec = (time_t)(timeout_usec / 1000000ULL), .tv_nsec = (long)(timeout_usec % 1000000ULL) * 1000L};
    if (ppoll(fds, 3, &ts, NULL) < 0 && errno != EINTR) return -errno;
    if (fds[0].revents & POLLIN && take_signal(a)) return 1;
    process(a, &a->system, NB_EV_SYSTEM_LOST);
    process(a, &a->session, NB_EV_SESSION_LOST);
    return 0;
}

const char *nb_strerror(int negative_errno) { return strerror(negative_errno < 0 ? -negative_errno : negative_errno); }
