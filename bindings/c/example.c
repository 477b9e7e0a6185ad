/* Inspect a diagnosis key file with libencore.
 *
 *   example FILE [KEY_ID KEY_VERSION PUBLIC_KEY.pem]
 *
 * With a trusted key the file must carry a valid signature by it; without,
 * verification is turned off. Prints the file's metadata and first keys.
 * Build: cc -std=c99 example.c -lencore   (or: pkg-config --cflags --libs encore) */
#include <encore.h>

#include <stdio.h>
#include <stdlib.h>

static unsigned char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static int fail(const char *what, encore_status status) {
    fprintf(stderr, "%s: %s: %s\n", what, encore_status_name(status), encore_last_error_message());
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 2 && argc != 5) {
        fprintf(stderr, "usage: %s FILE [KEY_ID KEY_VERSION PUBLIC_KEY.pem]\n", argv[0]);
        return 2;
    }
    printf("libencore %s\n", encore_version());

    encore_keyfile_options options;
    encore_keyfile_options_init(&options, sizeof options);
    encore_trust *trust = NULL;
    encore_status status;
    if (argc == 5) {
        size_t pem_len = 0;
        unsigned char *pem = read_all(argv[4], &pem_len);
        if (pem == NULL) { perror(argv[4]); return 1; }
        if ((status = encore_trust_new(&trust)) != ENCORE_OK) { free(pem); return fail("trust", status); }
        status = encore_trust_add_key(trust, argv[2], argv[3], pem, pem_len);
        free(pem);
        if (status != ENCORE_OK) { encore_trust_free(trust); return fail("trusted key", status); }
        options.trust = trust;
    } else {
        options.verify = 0;
    }

    encore_keyfile *file = NULL;
    status = encore_keyfile_open_path(argv[1], &options, &file);
    encore_trust_free(trust); /* the opened file does not need it */
    if (status != ENCORE_OK) return fail(argv[1], status);

    encore_keyfile_info info;
    ENCORE_OUTPUT_INIT(info);
    encore_keyfile_get_info(file, &info);
    printf("region %s, batch %d of %d, %llu keys, %llu revised, %llu invalid\n",
           info.region ? info.region : "(none)", info.batch_num, info.batch_size,
           (unsigned long long)info.key_count, (unsigned long long)info.revised_key_count,
           (unsigned long long)info.invalid_key_count);
    printf("signature: %s\n", info.signature_status == ENCORE_SIGNATURE_VERIFIED ? "verified" : "not verified");

    encore_key keys[3];
    size_t copied = 0;
    if ((status = encore_keyfile_copy_keys(file, ENCORE_KEYS, 0, keys, sizeof(encore_key), 3, &copied)) != ENCORE_OK) {
        encore_keyfile_free(file);
        return fail("keys", status);
    }
    for (size_t i = 0; i < copied; i++) {
        printf("key ");
        for (int j = 0; j < 16; j++) printf("%02x", keys[i].key_data[j]);
        printf(" start %d period %d report type %d\n", keys[i].rolling_start_interval_number,
               keys[i].rolling_period, keys[i].report_type);
    }
    encore_keyfile_free(file);
    return 0;
}
