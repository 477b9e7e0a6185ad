/* Polls a registered test's result through the operation API, with the
 * host's own HTTP code (libcurl's easy interface here; an event loop would
 * do the same with its own sockets): encore says which request to make,
 * the host makes it and feeds the answer back, until encore says DONE.
 *
 *   cc poll_operation.c -o poll_operation $(pkg-config --cflags --libs encore) -lcurl
 *   ENCORE_DB_KEY_HEX=<64 hex digits> ./poll_operation DB VERIFICATION_URL SUBMISSION_URL [NOW]
 *
 * Prints the test's status as JSON-like lines; exits 0 when the poll
 * succeeded, 1 otherwise. */
#include <encore.h>

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The answer being received. */
typedef struct answer {
    uint8_t *body;
    size_t length;
    int too_large;
} answer;

static size_t on_body(char *data, size_t size, size_t count, void *context) {
    answer *a = context;
    size_t n = size * count;
    if (a->length + n > (1u << 20)) {
        a->too_large = 1;
        return 0; /* stops the transfer */
    }
    uint8_t *grown = realloc(a->body, a->length + n + 1);
    if (grown == NULL) return 0;
    memcpy(grown + a->length, data, n);
    a->body = grown;
    a->length += n;
    return n;
}

/* Performs one step's request and feeds what came back. */
static encore_status perform(encore_operation *op, const encore_operation_step *step, int64_t now) {
    CURL *curl = curl_easy_init();
    if (curl == NULL) return encore_operation_feed_failure(op, step->request_id, ENCORE_ERR_NETWORK, now);
    struct curl_slist *headers = NULL;
    for (size_t i = 0; i < step->header_count; i++) {
        char line[1024];
        snprintf(line, sizeof line, "%s: %s", step->headers[i].name, step->headers[i].value);
        headers = curl_slist_append(headers, line);
    }
    answer a = {NULL, 0, 0};
    curl_easy_setopt(curl, CURLOPT_URL, step->url);
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, step->method);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    if (step->body_length > 0) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, (const char *)step->body);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)step->body_length);
    }
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &a);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, 60L);
    CURLcode rc = curl_easy_perform(curl);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);

    encore_status fed;
    if (a.too_large) {
        fed = encore_operation_feed_failure(op, step->request_id, ENCORE_ERR_RESPONSE_TOO_LARGE, now);
    } else if (rc == CURLE_OPERATION_TIMEDOUT) {
        fed = encore_operation_feed_failure(op, step->request_id, ENCORE_ERR_TIMEOUT, now);
    } else if (rc != CURLE_OK) {
        fed = encore_operation_feed_failure(op, step->request_id, ENCORE_ERR_NETWORK, now);
    } else {
        fed = encore_operation_feed_answer(op, step->request_id, (int32_t)status, NULL, 0, a.body, a.length, now);
    }
    free(a.body);
    return fed;
}

static const char *result_name(int32_t result) {
    switch (result) {
    case ENCORE_TEST_RESULT_PENDING: return "PENDING";
    case ENCORE_TEST_RESULT_NEGATIVE: return "NEGATIVE";
    case ENCORE_TEST_RESULT_POSITIVE: return "POSITIVE";
    case ENCORE_TEST_RESULT_INVALID: return "INVALID";
    case ENCORE_TEST_RESULT_REDEEMED: return "REDEEMED";
    default: return "NONE";
    }
}

static int hex_key(const char *hex, uint8_t out[32]) {
    if (hex == NULL || strlen(hex) != 64) return -1;
    for (int i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) return -1;
        out[i] = (uint8_t)v;
    }
    return 0;
}

/* The host's clock for the client: here the time the command line gave. */
static int64_t clock_now(void *context) {
    return *(const int64_t *)context;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: ENCORE_DB_KEY_HEX=... %s DB VERIFICATION_URL SUBMISSION_URL [NOW]\n", argv[0]);
        return 2;
    }
    uint8_t raw[32];
    if (hex_key(getenv("ENCORE_DB_KEY_HEX"), raw) != 0) {
        fprintf(stderr, "ENCORE_DB_KEY_HEX must hold the store's key as 64 hex digits\n");
        return 2;
    }
    int64_t now = argc > 4 ? strtoll(argv[4], NULL, 10) : (int64_t)time(NULL);
    curl_global_init(CURL_GLOBAL_DEFAULT);

    encore_store_key key = {sizeof(encore_store_key), ENCORE_KEY_RAW, raw, sizeof raw};
    encore_store_options options;
    encore_store_options_init(&options, sizeof options);
    options.create = 0;
    encore_store *store = NULL;
    encore_client *client = NULL;
    encore_operation *op = NULL;
    encore_status s = encore_store_open(argv[1], &key, &options, &store);
    if (s == ENCORE_OK) {
        /* The client's transport is never used: this program makes the requests. */
        encore_client_options client_options;
        encore_client_options_init(&client_options, sizeof client_options);
        client_options.verification_url = argv[2];
        client_options.submission_url = argv[3];
        client_options.clock = clock_now;
        client_options.clock_context = &now;
        s = encore_client_new(store, &client_options, &client);
    }
    if (s == ENCORE_OK) s = encore_test_poll_start(client, &op);
    int requests = 0;
    while (s == ENCORE_OK) {
        encore_operation_step step;
        ENCORE_OUTPUT_INIT(step);
        s = encore_operation_next(op, now, &step);
        if (s != ENCORE_OK || step.kind == ENCORE_STEP_DONE) break;
        if (step.kind == ENCORE_STEP_WAIT) {
            struct timespec pause = {step.wait_ms / 1000, (long)(step.wait_ms % 1000) * 1000000L};
            nanosleep(&pause, NULL);
            continue;
        }
        if (step.kind == ENCORE_STEP_COMPUTE) { /* heavy work: any thread would do; this program has one */
            s = encore_operation_compute(op, now, NULL, NULL);
            continue;
        }
        requests++;
        s = perform(op, &step, now);
    }
    if (s == ENCORE_OK) s = encore_operation_get_status(op);
    encore_test_status status;
    ENCORE_OUTPUT_INIT(status);
    if (s == ENCORE_OK) s = encore_operation_get_test_status(op, &status);
    if (s == ENCORE_OK) {
        printf("{\"requests\": %d, \"result\": \"%s\", \"notify\": %s, \"sampleCollectedAt\": %lld}\n", requests,
               result_name(status.result), status.notify ? "true" : "false", (long long)status.sample_collected_at);
    } else {
        fprintf(stderr, "%s: %s\n", encore_status_name(s), encore_last_error_message());
    }
    encore_operation_free(op);
    encore_client_free(client);
    encore_store_close(store);
    curl_global_cleanup();
    return s == ENCORE_OK ? 0 : 1;
}
