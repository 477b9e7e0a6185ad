/* C tests of silent-push registration through the .so, with a host
 * transport playing the registry: the rule on the stored state
 * (encore_push_set_state, encore_push_decide with its reason), register and
 * deregister through both APIs (the request each sends, the app-instance
 * token the same in all), the registration kept only on success (400 is
 * final, 503 is retried), and argument checks (tokens, events, types, NULL
 * pointers). Built with -Werror, run under valgrind. */
#include "check.h"
#include "store_client.h"
#include "client.h"
#include "fresh_store.h"

#include <stdio.h>
#include <string.h>

#define NOW 1795500000LL
#define SERVER "https://push.example"
#define APNS "abababababababababababababababababababababababababababababababab"

typedef struct registry {
    int status;          /* what to answer */
    int fail_first;      /* answer 503 this many times first */
    int requests;
    char method[8];
    char url[256];
    char auth[160];
    size_t body_length;
} registry;

static int32_t serve(void *context, const encore_http_request *r, encore_http_response *response) {
    registry *s = context;
    s->requests++;
    snprintf(s->method, sizeof s->method, "%s", r->method);
    snprintf(s->url, sizeof s->url, "%s", r->url);
    s->auth[0] = '\0';
    for (size_t i = 0; i < r->header_count; i++) {
        if (strcmp(r->headers[i].name, "Authorization") == 0) snprintf(s->auth, sizeof s->auth, "%s", r->headers[i].value);
    }
    s->body_length = r->body_length;
    int status = s->fail_first > 0 ? 503 : s->status;
    if (s->fail_first > 0) s->fail_first--;
    encore_http_response_set_status(response, status);
    return 0;
}

static int32_t decide(encore_store *store, int32_t event, int64_t now) {
    encore_push_decision d;
    memset(&d, 0, sizeof d);
    ENCORE_OUTPUT_INIT(d);
    d.action = -7;
    encore_bytes reason = {0};
    CHECK(encore_push_decide(store_client_at(store, now), event, &d, &reason) == ENCORE_OK);
    CHECK(reason.data != NULL && reason.length > 0);
    encore_bytes_free(&reason);
    return d.action;
}

static int registered(encore_store *store) {
    encore_bytes json = {0};
    CHECK(encore_push_get_status_json(store_client(store), &json) == ENCORE_OK);
    int yes = strstr((const char *)json.data, "\"registered\":true") != NULL;
    encore_bytes_free(&json);
    return yes;
}

static void test_rule_register_and_deregister(void) {
    encore_store *store = fresh_store();
    registry s = {200, 0, 0, "", "", "", 0};
    encore_transport *t = NULL;
    CHECK(encore_transport_new_callback(serve, &s, NULL, &t) == ENCORE_OK);
    /* No check-ins: nothing at app start; EN off then on. */
    CHECK(decide(store, ENCORE_PUSH_EVENT_APP_START, NOW) == ENCORE_PUSH_NONE);
    CHECK(decide(store, ENCORE_PUSH_EVENT_CHECKOUT, NOW) == ENCORE_PUSH_REGISTER);
    CHECK(encore_push_set_state(store_client_at(store, NOW), 1, ENCORE_PUSH_KEEP) == ENCORE_OK);
    CHECK(decide(store, ENCORE_PUSH_EVENT_CHECKOUT, NOW) == ENCORE_PUSH_NONE);
    CHECK(encore_push_set_state(store_client_at(store, NOW), 0, 1) == ENCORE_OK);
    CHECK(decide(store, ENCORE_PUSH_EVENT_TOKEN_CHANGED, NOW) == ENCORE_PUSH_NONE);

    /* SwissCovid's API (the default, options NULL). */
    CHECK(encore_push_register_run(push_client_at(store, t, SERVER, ENCORE_PUSH_API_SWISSCOVID, NOW), APNS, ENCORE_PUSH_TYPE_IOS, NULL) == ENCORE_OK);
    CHECK(strcmp(s.method, "POST") == 0 && strcmp(s.url, SERVER "/v3/register") == 0 && s.body_length > 64 + 64);
    CHECK(registered(store));
    CHECK(decide(store, ENCORE_PUSH_EVENT_TOKEN_CHANGED, NOW) == ENCORE_PUSH_REGISTER);
    CHECK(encore_push_set_state(store_client_at(store, NOW + 60), 1, ENCORE_PUSH_KEEP) == ENCORE_OK);
    CHECK(decide(store, ENCORE_PUSH_EVENT_APP_START, NOW + 60) == ENCORE_PUSH_DEREGISTER);

    /* The registry's API: PUT and DELETE with the bearer token. */
    encore_push_options o;
    CHECK(encore_push_options_init(&o, sizeof o) == ENCORE_OK && o.attempts == 3);
    o.retry_delay_ms = 0;
    encore_client *registry_client = push_client_at(store, t, SERVER, ENCORE_PUSH_API_REGISTRY, NOW);
    CHECK(encore_push_register_run(registry_client, APNS, ENCORE_PUSH_TYPE_IOS_SANDBOX, &o) == ENCORE_OK);
    CHECK(strcmp(s.method, "PUT") == 0 && strcmp(s.url, SERVER "/v1/registrations") == 0);
    CHECK(strncmp(s.auth, "Bearer ", 7) == 0 && strlen(s.auth) == 7 + 64);
    char bearer[160];
    snprintf(bearer, sizeof bearer, "%s", s.auth);
    /* From the stored registration: its server and API, whatever the client's. */
    CHECK(encore_push_deregister_run(push_client_at(store, t, NULL, ENCORE_PUSH_API_SWISSCOVID, NOW), NULL) == ENCORE_OK);
    CHECK(strcmp(s.method, "DELETE") == 0 && strcmp(s.auth, bearer) == 0 && s.body_length == 0);
    CHECK(!registered(store));

    /* 400 is final: one request, nothing stored. 503 twice then 200: three requests. */
    s.status = 400;
    s.requests = 0;
    CHECK(encore_push_register_run(registry_client, APNS, ENCORE_PUSH_TYPE_IOS, &o) == ENCORE_ERR_SERVER_REFUSED);
    CHECK(s.requests == 1 && !registered(store));
    s.status = 200;
    s.fail_first = 2;
    s.requests = 0;
    CHECK(encore_push_register_run(registry_client, APNS, ENCORE_PUSH_TYPE_IOS, &o) == ENCORE_OK);
    CHECK(s.requests == 3 && registered(store));
    s.fail_first = 5;
    o.attempts = 2;
    CHECK(encore_push_deregister_run(registry_client, &o) == ENCORE_ERR_SERVER_UNAVAILABLE);
    CHECK(registered(store));
    clients_free();
    encore_transport_free(t);
    encore_store_close(store);
}

static void test_arguments(void) {
    encore_store *store = fresh_store();
    registry s = {200, 0, 0, "", "", "", 0};
    encore_transport *t = NULL;
    CHECK(encore_transport_new_callback(serve, &s, NULL, &t) == ENCORE_OK);
    encore_push_decision d;
    memset(&d, 0, sizeof d);
    ENCORE_OUTPUT_INIT(d);
    CHECK(encore_push_decide(store_client_at(store, NOW), 99, &d, NULL) == ENCORE_ERR_PUSH_EVENT);
    CHECK(encore_push_decide(store_client_at(store, NOW), ENCORE_PUSH_EVENT_APP_START, NULL, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_push_decide(NULL, ENCORE_PUSH_EVENT_APP_START, &d, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    d.struct_size = 2;
    encore_bytes reason = {0};
    CHECK(encore_push_decide(store_client_at(store, NOW), ENCORE_PUSH_EVENT_APP_START, &d, &reason) == ENCORE_ERR_INVALID_ARGUMENT && reason.data == NULL);
    CHECK(encore_push_set_state(store_client_at(store, NOW), 2, ENCORE_PUSH_KEEP) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_push_set_state(store_client_at(store, -1), 1, ENCORE_PUSH_KEEP) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_client *client = push_client_at(store, t, SERVER, ENCORE_PUSH_API_SWISSCOVID, NOW);
    CHECK(encore_push_register_run(client, "abab", ENCORE_PUSH_TYPE_IOS, NULL) == ENCORE_ERR_PUSH_TOKEN);
    CHECK(encore_push_register_run(client, "has space", ENCORE_PUSH_TYPE_ANDROID, NULL) == ENCORE_ERR_PUSH_TOKEN);
    CHECK(encore_push_register_run(client, APNS, 7, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_push_register_run(client, NULL, ENCORE_PUSH_TYPE_IOS, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_push_register_run(NULL, APNS, ENCORE_PUSH_TYPE_IOS, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_push_register_run(push_client_at(store, t, NULL, ENCORE_PUSH_API_SWISSCOVID, NOW), APNS, ENCORE_PUSH_TYPE_IOS, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "push registry") != NULL);
    CHECK(encore_push_register_run(push_client_at(store, t, "http://push.example", ENCORE_PUSH_API_SWISSCOVID, NOW), APNS, ENCORE_PUSH_TYPE_IOS, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_push_register_run(push_client_at(store, t, SERVER, ENCORE_PUSH_API_SWISSCOVID, -1), APNS, ENCORE_PUSH_TYPE_IOS, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    /* An unknown API is refused when the client is made. */
    encore_client_options co = test_client_options(t, NULL);
    co.push_url = SERVER;
    co.push_api = 7;
    encore_client *refused = NULL;
    CHECK(encore_client_new(store, &co, &refused) == ENCORE_ERR_INVALID_ARGUMENT && refused == NULL);
    encore_push_options o;
    CHECK(encore_push_options_init(&o, sizeof o) == ENCORE_OK);
    o.attempts = 0;
    CHECK(encore_push_register_run(client, APNS, ENCORE_PUSH_TYPE_IOS, &o) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_push_options_init(&o, 3) == ENCORE_ERR_INVALID_ARGUMENT);
    /* Not registered and no server: nothing to deregister from. */
    CHECK(encore_push_deregister_run(push_client_at(store, t, NULL, ENCORE_PUSH_API_SWISSCOVID, NOW), NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    clients_free();
    CHECK(s.requests == 0);
    encore_transport_free(t);
    encore_store_close(store);
}

int main(void) {
    if (scratch_dir_make(dir, sizeof dir, "push") != 0) return 1;
    test_rule_register_and_deregister();
    test_arguments();
    scratch_dir_remove(dir);
    return check_report();
}
