/* C tests of silent-push registration through the .so, with a host
 * transport playing the registry: the rule on the stored state
 * (encore_push_set_state, encore_push_decide with its reason), register and
 * deregister through both APIs (the request each sends, the app-instance
 * token the same in all), the registration kept only on success (400 is
 * final, 503 is retried), and argument checks (tokens, events, types, NULL
 * pointers). Built with -Werror, run under valgrind. */
#include "check.h"
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

/* What the rule says to do on `event`, at the client's time. */
static int32_t decide(encore_client *client, int32_t event) {
    encore_push_decision d;
    memset(&d, 0, sizeof d);
    ENCORE_OUTPUT_INIT(d);
    d.action = -7;
    encore_bytes reason = {0};
    CHECK(encore_push_decide(client, event, &d, &reason) == ENCORE_OK);
    CHECK(reason.data != NULL && reason.length > 0);
    encore_bytes_free(&reason);
    return d.action;
}

static int registered(encore_client *client) {
    encore_bytes json = {0};
    CHECK(encore_push_get_status_json(client, &json) == ENCORE_OK);
    int yes = strstr((const char *)json.data, "\"registered\":true") != NULL;
    encore_bytes_free(&json);
    return yes;
}

static void test_rule_register_and_deregister(void) {
    encore_store *store = fresh_store();
    registry s = {200, 0, 0, "", "", "", 0};
    encore_transport *t = NULL;
    CHECK(encore_transport_new_callback(serve, &s, NULL, &t) == ENCORE_OK);
    /* The app's client: SwissCovid's API (the default, options NULL). */
    int64_t clock_now = NOW;  /* the test's clock, which it moves */
    encore_client *app = push_client(store, t, SERVER, ENCORE_PUSH_API_SWISSCOVID, &clock_now);
    /* No check-ins: nothing at app start; EN off then on. */
    CHECK(decide(app, ENCORE_PUSH_EVENT_APP_START) == ENCORE_PUSH_NONE);
    CHECK(decide(app, ENCORE_PUSH_EVENT_CHECKOUT) == ENCORE_PUSH_REGISTER);
    CHECK(encore_push_set_state(app, 1, ENCORE_PUSH_KEEP) == ENCORE_OK);
    CHECK(decide(app, ENCORE_PUSH_EVENT_CHECKOUT) == ENCORE_PUSH_NONE);
    CHECK(encore_push_set_state(app, 0, 1) == ENCORE_OK);
    CHECK(decide(app, ENCORE_PUSH_EVENT_TOKEN_CHANGED) == ENCORE_PUSH_NONE);

    CHECK(encore_push_register_run(app, APNS, ENCORE_PUSH_TYPE_IOS, NULL) == ENCORE_OK);
    CHECK(strcmp(s.method, "POST") == 0 && strcmp(s.url, SERVER "/v3/register") == 0 && s.body_length > 64 + 64);
    CHECK(registered(app));
    CHECK(decide(app, ENCORE_PUSH_EVENT_TOKEN_CHANGED) == ENCORE_PUSH_REGISTER);
    clock_now = NOW + 60;
    CHECK(encore_push_set_state(app, 1, ENCORE_PUSH_KEEP) == ENCORE_OK);
    CHECK(decide(app, ENCORE_PUSH_EVENT_APP_START) == ENCORE_PUSH_DEREGISTER);

    /* The registry's API: PUT and DELETE with the bearer token. */
    encore_push_options o;
    CHECK(encore_push_options_init(&o, sizeof o) == ENCORE_OK && o.attempts == 3);
    o.retry_delay_ms = 0;
    encore_client *registry_client = push_client(store, t, SERVER, ENCORE_PUSH_API_REGISTRY, &clock_now);
    CHECK(encore_push_register_run(registry_client, APNS, ENCORE_PUSH_TYPE_IOS_SANDBOX, &o) == ENCORE_OK);
    CHECK(strcmp(s.method, "PUT") == 0 && strcmp(s.url, SERVER "/v1/registrations") == 0);
    CHECK(strncmp(s.auth, "Bearer ", 7) == 0 && strlen(s.auth) == 7 + 64);
    char bearer[160];
    snprintf(bearer, sizeof bearer, "%s", s.auth);
    /* From the stored registration: its server and API, whatever the client's. */
    encore_client *serverless = push_client(store, t, NULL, ENCORE_PUSH_API_SWISSCOVID, &clock_now);
    CHECK(encore_push_deregister_run(serverless, NULL) == ENCORE_OK);
    CHECK(strcmp(s.method, "DELETE") == 0 && strcmp(s.auth, bearer) == 0 && s.body_length == 0);
    CHECK(!registered(app));

    /* 400 is final: one request, nothing stored. 503 twice then 200: three requests. */
    s.status = 400;
    s.requests = 0;
    CHECK(encore_push_register_run(registry_client, APNS, ENCORE_PUSH_TYPE_IOS, &o) == ENCORE_ERR_SERVER_REFUSED);
    CHECK(s.requests == 1 && !registered(app));
    s.status = 200;
    s.fail_first = 2;
    s.requests = 0;
    CHECK(encore_push_register_run(registry_client, APNS, ENCORE_PUSH_TYPE_IOS, &o) == ENCORE_OK);
    CHECK(s.requests == 3 && registered(app));
    s.fail_first = 5;
    o.attempts = 2;
    CHECK(encore_push_deregister_run(registry_client, &o) == ENCORE_ERR_SERVER_UNAVAILABLE);
    CHECK(registered(app));
    encore_client_free(serverless);
    encore_client_free(registry_client);
    encore_client_free(app);
    encore_transport_free(t);
    encore_store_close(store);
}

static void test_arguments(void) {
    encore_store *store = fresh_store();
    registry s = {200, 0, 0, "", "", "", 0};
    encore_transport *t = NULL;
    CHECK(encore_transport_new_callback(serve, &s, NULL, &t) == ENCORE_OK);
    int64_t clock_now = NOW;  /* the test's clock, which it moves */
    encore_client *client = push_client(store, t, SERVER, ENCORE_PUSH_API_SWISSCOVID, &clock_now);
    encore_push_decision d;
    memset(&d, 0, sizeof d);
    ENCORE_OUTPUT_INIT(d);
    CHECK(encore_push_decide(client, 99, &d, NULL) == ENCORE_ERR_PUSH_EVENT);
    CHECK(encore_push_decide(client, ENCORE_PUSH_EVENT_APP_START, NULL, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_push_decide(NULL, ENCORE_PUSH_EVENT_APP_START, &d, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    d.struct_size = 2;
    encore_bytes reason = {0};
    CHECK(encore_push_decide(client, ENCORE_PUSH_EVENT_APP_START, &d, &reason) == ENCORE_ERR_INVALID_ARGUMENT && reason.data == NULL);
    CHECK(encore_push_set_state(client, 2, ENCORE_PUSH_KEEP) == ENCORE_ERR_INVALID_ARGUMENT);
    clock_now = -1;
    CHECK(encore_push_set_state(client, 1, ENCORE_PUSH_KEEP) == ENCORE_ERR_INVALID_ARGUMENT);
    clock_now = NOW;
    CHECK(encore_push_register_run(client, "abab", ENCORE_PUSH_TYPE_IOS, NULL) == ENCORE_ERR_PUSH_TOKEN);
    CHECK(encore_push_register_run(client, "has space", ENCORE_PUSH_TYPE_ANDROID, NULL) == ENCORE_ERR_PUSH_TOKEN);
    CHECK(encore_push_register_run(client, APNS, 7, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_push_register_run(client, NULL, ENCORE_PUSH_TYPE_IOS, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_push_register_run(NULL, APNS, ENCORE_PUSH_TYPE_IOS, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_client *serverless = push_client(store, t, NULL, ENCORE_PUSH_API_SWISSCOVID, &clock_now);
    CHECK(encore_push_register_run(serverless, APNS, ENCORE_PUSH_TYPE_IOS, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "push registry") != NULL);
    encore_client *plain_http = push_client(store, t, "http://push.example", ENCORE_PUSH_API_SWISSCOVID, &clock_now);
    CHECK(encore_push_register_run(plain_http, APNS, ENCORE_PUSH_TYPE_IOS, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_client_free(plain_http);
    clock_now = -1;
    CHECK(encore_push_register_run(client, APNS, ENCORE_PUSH_TYPE_IOS, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    clock_now = NOW;
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
    CHECK(encore_push_deregister_run(serverless, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_client_free(serverless);
    encore_client_free(client);
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
