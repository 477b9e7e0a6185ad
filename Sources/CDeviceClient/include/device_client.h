// The encore tool's side of encored's D-Bus API (org.encore.Exposure1 at
// /org/encore/Exposure, name org.encore.Exposure, system bus), through
// sd-bus: one blocking call per function, the service's error name and
// message handed back. In the tool, never in libencore.so; libsystemd is
// loaded by the first dc_open (device_client.c says why).
#ifndef ENCORE_DEVICE_CLIENT_H
#define ENCORE_DEVICE_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dc_client dc_client;

typedef struct {
    char name[256];      // the D-Bus error's name (org.encore.Error.NotAuthorized, ...)
    char message[2048];
} dc_error;

typedef struct {
    int enabled;
    char state[32], risk_level[32], last_exposure_day[32], test_state[32];
    uint64_t last_sync, last_check, next_sync;
} dc_status;

/// Connects to the system bus (DBUS_SYSTEM_BUS_ADDRESS is honoured); calls
/// may take `timeout_sec` (SyncNow waits for the sync) and polkit may ask
/// the user to authenticate. 0 or -errno (err filled); -ELIBACC when
/// libsystemd cannot be loaded.
int dc_open(uint64_t timeout_sec, dc_client **out, dc_error *err);
void dc_close(dc_client *client);

/// Each: 0, or a negative errno with *err naming the failure.
int dc_get_status(dc_client *c, dc_status *out, dc_error *err);
int dc_set_enabled(dc_client *c, int enabled, dc_error *err);
int dc_sync_now(dc_client *c, dc_error *err);
int dc_register_test(dc_client *c, const char *code, dc_error *err);
/// onset: "YYYY-MM-DD" or NULL; symptomatic: 1, 0, or -1 (not said).
int dc_submit_keys(dc_client *c, const char *onset, int symptomatic, dc_error *err);
int dc_check_in(dc_client *c, const char *qr, char *id, size_t id_size, dc_error *err);
int dc_check_out(dc_client *c, const char *id, dc_error *err);
int dc_delete_all_data(dc_client *c, dc_error *err);

#ifdef __cplusplus
}
#endif
#endif
