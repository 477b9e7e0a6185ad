// encored's object on the system bus (see exposure_bus.h). sd-bus exports
// the interface from the vtable (methods, properties, introspection,
// PropertiesChanged); the property reads are taken before sd-bus answers
// them (a filter), because polkit must be asked first and its answer comes
// later, as every call's does. Nothing here decides anything: calls become
// events, and the Swift service answers them by id.
#define _GNU_SOURCE
#include "exposure_bus.h"
#include "bus_queue.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#define NAME "org.encore.Exposure"
#define PATH "/org/encore/Exposure"
#define IFACE "org.encore.Exposure1"
#define PROPS_IFACE "org.freedesktop.DBus.Properties"
#define DRIVER "org.freedesktop.DBus"
#define POLKIT "org.freedesktop.PolicyKit1"

typedef struct {
    uint64_t id;
    sd_bus_message *call;
} pending_call;

/// The properties as the bus answers them (eb_properties' strings copied).
typedef struct {
    int enabled;
    char state[32], risk_level[16], last_exposure_day[16], test_state[16];
    uint64_t last_sync, last_check, next_sync;
} held_properties;

static void hold_properties(held_properties *h, const eb_properties *p) {
    h->enabled = p->enabled != 0;
    snprintf(h->state, sizeof h->state, "%s", p->state ? p->state : "");
    snprintf(h->risk_level, sizeof h->risk_level, "%s", p->risk_level ? p->risk_level : "");
    snprintf(h->last_exposure_day, sizeof h->last_exposure_day, "%s", p->last_exposure_day ? p->last_exposure_day : "");
    snprintf(h->test_state, sizeof h->test_state, "%s", p->test_state ? p->test_state : "");
    h->last_sync = p->last_sync;
    h->last_check = p->last_check;
    h->next_sync = p->next_sync;
}

struct eb_bus {
    sd_bus *bus;
    sd_bus_slot *vtable_slot, *filter_slot, *name_lost_slot;
    int signal_fd, wake_fd;
    held_properties props;
    bq_queue events;
    pending_call *pending;
    size_t pending_count, pending_capacity;
    uint64_t next_id;
};

// MARK: events and pending calls

static eb_event *push_event(eb_bus *b, int kind) {
    eb_event *ev = bq_push(&b->events);
    if (ev) ev->kind = kind;
    return ev;
}

int eb_next_event(eb_bus *b, eb_event *ev) { return bq_pop(&b->events, ev); }

static void copy_text(char *dst, size_t size, const char *src) {
    snprintf(dst, size, "%s", src ? src : "");
}

/// Keeps the call for its answer; the event that announces it, or NULL.
static eb_event *hold_call(eb_bus *b, sd_bus_message *m) {
    if (b->pending_count == b->pending_capacity) {
        size_t capacity = b->pending_capacity ? b->pending_capacity * 2 : 16;
        pending_call *p = realloc(b->pending, capacity * sizeof *p);
        if (!p) return NULL;
        b->pending = p;
        b->pending_capacity = capacity;
    }
    eb_event *ev = push_event(b, EB_EV_CALL);
    if (!ev) return NULL;
    ev->id = ++b->next_id;
    copy_text(ev->member, sizeof ev->member, sd_bus_message_get_member(m));
    copy_text(ev->sender, sizeof ev->sender, sd_bus_message_get_sender(m));
    b->pending[b->pending_count++] = (pending_call){ev->id, sd_bus_message_ref(m)};
    return ev;
}

/// The call `id`, taken out of the table (the caller unrefs it), or NULL.
static sd_bus_message *take_call(eb_bus *b, uint64_t id) {
    for (size_t i = 0; i < b->pending_count; i++) {
        if (b->pending[i].id != id) continue;
        sd_bus_message *m = b->pending[i].call;
        b->pending[i] = b->pending[--b->pending_count];
        return m;
    }
    return NULL;
}

// MARK: properties

static const char *const property_names[] = {"Enabled", "State", "RiskLevel", "LastExposureDay", "LastSync", "LastCheck", "NextSync",
                                             "TestState"};
enum { PROPERTY_COUNT = sizeof property_names / sizeof property_names[0] };

static const char *property_signature(const char *name) {
    if (!strcmp(name, "Enabled")) return "b";
    if (!strcmp(name, "LastSync") || !strcmp(name, "LastCheck") || !strcmp(name, "NextSync")) return "t";
    return "s";
}

/// Appends the value of `name` (its bare value; the caller opened any variant).
static int append_value(sd_bus_message *m, const held_properties *p, const char *name) {
    if (!strcmp(name, "Enabled")) return sd_bus_message_append(m, "b", p->enabled);
    if (!strcmp(name, "State")) return sd_bus_message_append(m, "s", p->state);
    if (!strcmp(name, "RiskLevel")) return sd_bus_message_append(m, "s", p->risk_level);
    if (!strcmp(name, "LastExposureDay")) return sd_bus_message_append(m, "s", p->last_exposure_day);
    if (!strcmp(name, "LastSync")) return sd_bus_message_append(m, "t", p->last_sync);
    if (!strcmp(name, "LastCheck")) return sd_bus_message_append(m, "t", p->last_check);
    if (!strcmp(name, "NextSync")) return sd_bus_message_append(m, "t", p->next_sync);
    if (!strcmp(name, "TestState")) return sd_bus_message_append(m, "s", p->test_state);
    return -ENOENT;
}

static bool is_property(const char *name) {
    for (size_t i = 0; i < PROPERTY_COUNT; i++)
        if (!strcmp(property_names[i], name)) return true;
    return false;
}

/// sd-bus's getter: used for PropertiesChanged with values (Get and GetAll
/// are answered by eb_reply_properties after polkit).
static int get_property(sd_bus *bus, const char *path, const char *interface, const char *property, sd_bus_message *reply, void *userdata,
                        sd_bus_error *error) {
    (void)bus, (void)path, (void)interface, (void)error;
    eb_bus *b = userdata;
    return append_value(reply, &b->props, property);
}

static int append_variant(sd_bus_message *m, const held_properties *p, const char *name) {
    int r = sd_bus_message_open_container(m, 'v', property_signature(name));
    if (r < 0) return r;
    if ((r = append_value(m, p, name)) < 0) return r;
    return sd_bus_message_close_container(m);
}

int eb_reply_properties(eb_bus *b, uint64_t id) {
    sd_bus_message *call = take_call(b, id);
    if (!call) return -ENOENT;
    sd_bus_message *reply = NULL;
    int r = sd_bus_message_new_method_return(call, &reply);
    if (r >= 0) {
        if (!strcmp(sd_bus_message_get_member(call), "Get")) {
            const char *iface = NULL, *name = NULL;
            r = sd_bus_message_read(call, "ss", &iface, &name);
            if (r >= 0) r = append_variant(reply, &b->props, name);
        } else {
            r = sd_bus_message_open_container(reply, 'a', "{sv}");
            for (size_t i = 0; r >= 0 && i < PROPERTY_COUNT; i++) {
                if ((r = sd_bus_message_open_container(reply, 'e', "sv")) < 0) break;
                if ((r = sd_bus_message_append(reply, "s", property_names[i])) < 0) break;
                if ((r = append_variant(reply, &b->props, property_names[i])) < 0) break;
                r = sd_bus_message_close_container(reply);
            }
            if (r >= 0) r = sd_bus_message_close_container(reply);
        }
    }
    if (r >= 0) r = sd_bus_send(b->bus, reply, NULL);
    sd_bus_message_unref(reply);
    sd_bus_message_unref(call);
    return r;
}

int eb_set_properties(eb_bus *b, const eb_properties *values) {
    const char *changed[PROPERTY_COUNT + 1];
    size_t n = 0;
    held_properties new_values;
    hold_properties(&new_values, values);
    const held_properties *o = &b->props, *v = &new_values;
    if (o->enabled != v->enabled) changed[n++] = "Enabled";
    if (strcmp(o->state, v->state)) changed[n++] = "State";
    if (strcmp(o->risk_level, v->risk_level)) changed[n++] = "RiskLevel";
    if (strcmp(o->last_exposure_day, v->last_exposure_day)) changed[n++] = "LastExposureDay";
    if (o->last_sync != v->last_sync) changed[n++] = "LastSync";
    if (o->last_check != v->last_check) changed[n++] = "LastCheck";
    if (o->next_sync != v->next_sync) changed[n++] = "NextSync";
    if (strcmp(o->test_state, v->test_state)) changed[n++] = "TestState";
    changed[n] = NULL;
    b->props = new_values;
    if (n == 0) return 0;
    return sd_bus_emit_properties_changed_strv(b->bus, PATH, IFACE, (char **)changed);
}

// MARK: incoming calls

/// SubmitKeys' a{sv}: onset (s) and symptomatic (b); anything else is refused.
static int read_symptoms(sd_bus_message *m, eb_event *ev, sd_bus_error *error) {
    int r = sd_bus_message_enter_container(m, 'a', "{sv}");
    if (r < 0) return r;
    while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
        const char *key = NULL, *contents = NULL;
        char type = 0;
        if ((r = sd_bus_message_read(m, "s", &key)) < 0) return r;
        if ((r = sd_bus_message_peek_type(m, &type, &contents)) < 0) return r;
        if (!strcmp(key, "onset") && contents && !strcmp(contents, "s")) {
            const char *day = NULL;
            if ((r = sd_bus_message_read(m, "v", "s", &day)) < 0) return r;
            if (strlen(day) >= sizeof ev->onset)
                return sd_bus_error_setf(error, "org.encore.Error.InvalidArgument", "ENCORE_ERR_INVALID_ARGUMENT: onset is a day YYYY-MM-DD");
            copy_text(ev->onset, sizeof ev->onset, day);
            ev->has_onset = 1;
        } else if (!strcmp(key, "symptomatic") && contents && !strcmp(contents, "b")) {
            int flag = 0;
            if ((r = sd_bus_message_read(m, "v", "b", &flag)) < 0) return r;
            ev->has_symptomatic = 1;
            ev->symptomatic = flag != 0;
        } else {
            return sd_bus_error_setf(error, "org.encore.Error.InvalidArgument",
                                     "ENCORE_ERR_INVALID_ARGUMENT: the symptoms are onset (s, YYYY-MM-DD) and symptomatic (b), not '%s' (%s)",
                                     key, contents ? contents : "?");
        }
        if ((r = sd_bus_message_exit_container(m)) < 0) return r;
    }
    if (r < 0) return r;
    return sd_bus_message_exit_container(m);
}

static int on_method(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    eb_bus *b = userdata;
    const char *member = sd_bus_message_get_member(m);
    eb_event scratch = {0};
    int r = 0;
    const char *text = NULL;
    if (!strcmp(member, "SetEnabled")) {
        r = sd_bus_message_read(m, "b", &scratch.flag);
        scratch.flag = scratch.flag != 0;
    } else if (!strcmp(member, "RegisterTest") || !strcmp(member, "CheckIn") || !strcmp(member, "CheckOut")) {
        r = sd_bus_message_read(m, "s", &text);
    } else if (!strcmp(member, "SubmitKeys")) {
        r = read_symptoms(m, &scratch, error);
    }
    if (r < 0 || sd_bus_error_is_set(error)) return r < 0 ? r : -EINVAL;
    if (text) {
        scratch.text_truncated = strlen(text) >= sizeof scratch.text;
        copy_text(scratch.text, sizeof scratch.text, text);
    }
    eb_event *ev = hold_call(b, m);
    if (!ev) return -ENOMEM;
    memcpy(ev->text, scratch.text, sizeof ev->text);
    ev->text_truncated = scratch.text_truncated;
    ev->flag = scratch.flag;
    ev->has_onset = scratch.has_onset;
    memcpy(ev->onset, scratch.onset, sizeof ev->onset);
    ev->has_symptomatic = scratch.has_symptomatic;
    ev->symptomatic = scratch.symptomatic;
    return 1;   // answered later, by id
}

/// Get and GetAll of the interface, taken before sd-bus answers them: the
/// caller may read them only once polkit said so. (Set is left to sd-bus:
/// every property is read-only, and it refuses.)
static int on_filter(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    eb_bus *b = userdata;
    if (!sd_bus_message_is_method_call(m, PROPS_IFACE, NULL)) return 0;
    const char *path = sd_bus_message_get_path(m);
    if (!path || strcmp(path, PATH)) return 0;
    const char *member = sd_bus_message_get_member(m);
    bool get = !strcmp(member, "Get"), get_all = !strcmp(member, "GetAll");
    if (!get && !get_all) return 0;
    const char *iface = NULL, *name = NULL;
    int r = get ? sd_bus_message_read(m, "ss", &iface, &name) : sd_bus_message_read(m, "s", &iface);
    sd_bus_message_rewind(m, true);
    if (r < 0) return 0;   // a malformed call: sd-bus refuses it
    // GetAll of "" is every interface's: ours is the one with properties.
    if (strcmp(iface, IFACE) && !(get_all && iface[0] == 0)) return 0;
    if (get && !is_property(name)) {
        sd_bus_reply_method_errorf(m, SD_BUS_ERROR_UNKNOWN_PROPERTY, "%s has no property '%s'", IFACE, name);
        return 1;
    }
    eb_event *ev = hold_call(b, m);
    if (!ev) return -ENOMEM;
    if (name) copy_text(ev->text, sizeof ev->text, name);
    return 1;
}

/// NameLost of our name, from the bus driver alone.
static int on_name_lost(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    eb_bus *b = userdata;
    const char *sender = sd_bus_message_get_sender(m), *name = NULL;
    if (!sender || strcmp(sender, DRIVER)) return 0;
    if (sd_bus_message_read(m, "s", &name) < 0 || strcmp(name, NAME)) return 0;
    push_event(b, EB_EV_NAME_LOST);
    return 0;
}

// MARK: polkit

typedef struct {
    eb_bus *bus;
    uint64_t id;
} auth_question;

static int on_auth_reply(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    auth_question *q = userdata;
    eb_event *ev = push_event(q->bus, EB_EV_AUTH);
    if (ev) {
        ev->id = q->id;
        const sd_bus_error *e = sd_bus_message_get_error(m);
        if (e) {
            snprintf(ev->error, sizeof ev->error, "polkit did not answer (%s)", e->name ? e->name : "?");
        } else {
            int authorized = 0, challenge = 0;
            // (bba{ss}): is_authorized, is_challenge, details.
            if (sd_bus_message_enter_container(m, 'r', "bba{ss}") < 0 || sd_bus_message_read(m, "bb", &authorized, &challenge) < 0)
                snprintf(ev->error, sizeof ev->error, "polkit's answer could not be read");
            else if (authorized)
                ev->allowed = 1;
            else
                snprintf(ev->error, sizeof ev->error, challenge ? "authentication is required" : "not authorized");
        }
    }
    free(q);
    return 0;
}

int eb_check_auth(eb_bus *b, uint64_t id, const char *sender, const char *action, int interactive) {
    auth_question *q = calloc(1, sizeof *q);
    if (!q) return -ENOMEM;
    q->bus = b;
    q->id = id;
    // CheckAuthorization(subject (sa{sv}), action_id, details a{ss}, flags (1: AllowUserInteraction), cancellation_id).
    int r = sd_bus_call_method_async(b->bus, NULL, POLKIT, "/org/freedesktop/PolicyKit1/Authority", POLKIT ".Authority", "CheckAuthorization",
                                     on_auth_reply, q, "(sa{sv})sa{ss}us", "system-bus-name", 1, "name", "s", sender, action, 0,
                                     (uint32_t)(interactive ? 1 : 0), "");
    if (r < 0) free(q);
    return r < 0 ? r : 0;
}

// MARK: answers

static int finish(eb_bus *b, uint64_t id, int (*reply)(sd_bus_message *, const void *, const void *), const void *a, const void *c) {
    sd_bus_message *call = take_call(b, id);
    if (!call) return -ENOENT;
    int r = reply(call, a, c);
    sd_bus_message_unref(call);
    return r;
}

static int reply_empty(sd_bus_message *m, const void *a, const void *c) { (void)a, (void)c; return sd_bus_reply_method_return(m, ""); }
static int reply_string(sd_bus_message *m, const void *a, const void *c) { (void)c; return sd_bus_reply_method_return(m, "s", (const char *)a); }
static int reply_error(sd_bus_message *m, const void *a, const void *c) {
    return sd_bus_reply_method_errorf(m, (const char *)a, "%s", (const char *)c);
}

int eb_reply_empty(eb_bus *b, uint64_t id) { return finish(b, id, reply_empty, NULL, NULL); }
int eb_reply_string(eb_bus *b, uint64_t id, const char *value) { return finish(b, id, reply_string, value, NULL); }
int eb_reply_error(eb_bus *b, uint64_t id, const char *name, const char *message) { return finish(b, id, reply_error, name, message); }

// MARK: the connection

static const sd_bus_vtable exposure_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("Enabled", "b", get_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("State", "s", get_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("RiskLevel", "s", get_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_INVALIDATION),
    SD_BUS_PROPERTY("LastExposureDay", "s", get_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_INVALIDATION),
    SD_BUS_PROPERTY("LastSync", "t", get_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("LastCheck", "t", get_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("NextSync", "t", get_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("TestState", "s", get_property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_INVALIDATION),
    // UNPRIVILEGED: sd-bus's own capability check off; polkit decides.
    SD_BUS_METHOD_WITH_NAMES("SetEnabled", "b", SD_BUS_PARAM(enabled), "", , on_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("SyncNow", "", "", on_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("RegisterTest", "s", SD_BUS_PARAM(code), "", , on_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("SubmitKeys", "a{sv}", SD_BUS_PARAM(symptoms), "", , on_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("CheckIn", "s", SD_BUS_PARAM(qr), "s", SD_BUS_PARAM(id), on_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_NAMES("CheckOut", "s", SD_BUS_PARAM(id), "", , on_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("DeleteAllData", "", "", on_method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END,
};

static int block_signals(void) {
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    if (pthread_sigmask(SIG_BLOCK, &mask, NULL) != 0) return -EINVAL;
    int fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int eb_open(const eb_properties *initial, eb_bus **out) {
    eb_bus *b = calloc(1, sizeof *b);
    if (!b) return -ENOMEM;
    b->signal_fd = b->wake_fd = -1;
    b->events.size = sizeof(eb_event);
    hold_properties(&b->props, initial);
    int r;
    if ((r = block_signals()) < 0) goto fail;
    b->signal_fd = r;
    if ((b->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) { r = -errno; goto fail; }
    if ((r = sd_bus_open_system(&b->bus)) < 0) goto fail;
    if ((r = sd_bus_add_filter(b->bus, &b->filter_slot, on_filter, b)) < 0) goto fail;
    if ((r = sd_bus_add_object_vtable(b->bus, &b->vtable_slot, PATH, IFACE, exposure_vtable, b)) < 0) goto fail;
    if ((r = sd_bus_add_match(b->bus, &b->name_lost_slot,
                              "type='signal',sender='" DRIVER "',path='/org/freedesktop/DBus',interface='" DRIVER "',member='NameLost',arg0='" NAME "'",
                              on_name_lost, b)) < 0) goto fail;
    // Not queued: a second service on the bus fails at once (the name is one per bus).
    if ((r = sd_bus_request_name(b->bus, NAME, 0)) < 0) goto fail;
    *out = b;
    return 0;
fail:
    eb_close(b);
    return r;
}

void eb_close(eb_bus *b) {
    if (!b) return;
    for (size_t i = 0; i < b->pending_count; i++) sd_bus_message_unref(b->pending[i].call);
    free(b->pending);
    bq_clear(&b->events);
    sd_bus_slot_unref(b->vtable_slot);
    sd_bus_slot_unref(b->filter_slot);
    sd_bus_slot_unref(b->name_lost_slot);
    if (b->bus) sd_bus_flush_close_unref(b->bus);
    if (b->signal_fd >= 0) close(b->signal_fd);
    if (b->wake_fd >= 0) close(b->wake_fd);
    free(b);
}

void eb_wake(eb_bus *b) {
    uint64_t one = 1;
    ssize_t n = write(b->wake_fd, &one, sizeof one);
    (void)n;   // a full counter wakes the loop just as well
}

static bool take_signal(eb_bus *b) {
    struct signalfd_siginfo info;
    return read(b->signal_fd, &info, sizeof info) == (ssize_t)sizeof info;
}

static int process_all(eb_bus *b) {
    int r;
    while ((r = sd_bus_process(b->bus, NULL)) > 0) {}
    return r;
}

static uint64_t monotonic_usec(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000ULL;
}

int eb_wait(eb_bus *b, uint64_t timeout_usec) {
    int r = process_all(b);
    if (r < 0) return r;
    if (take_signal(b)) return 1;
    if (!bq_empty(&b->events)) timeout_usec = 0;   // events are waiting: no sleep
    uint64_t until = UINT64_MAX, now = monotonic_usec();
    if (sd_bus_get_timeout(b->bus, &until) >= 0 && until != UINT64_MAX) {
        uint64_t bus_wait = until > now ? until - now : 0;
        if (bus_wait < timeout_usec) timeout_usec = bus_wait;
    }
    int events = sd_bus_get_events(b->bus);
    if (events < 0) return events;
    struct pollfd fds[3] = {{.fd = sd_bus_get_fd(b->bus), .events = (short)events},
                            {.fd = b->signal_fd, .events = POLLIN},
                            {.fd = b->wake_fd, .events = POLLIN}};
    struct timespec ts = {.tv_sec = (time_t)(timeout_usec / 1000000ULL), .tv_nsec = (long)(timeout_usec % 1000000ULL) * 1000L};
    if (ppoll(fds, 3, &ts, NULL) < 0 && errno != EINTR) return -errno;
    if (fds[1].revents & POLLIN && take_signal(b)) return 1;
    if (fds[2].revents & POLLIN) {
        uint64_t count;
        ssize_t n = read(b->wake_fd, &count, sizeof count);
        (void)n;
    }
    r = process_all(b);
    return r < 0 ? r : 0;
}

const char *eb_strerror(int negative_errno) { return strerror(negative_errno < 0 ? -negative_errno : negative_errno); }
