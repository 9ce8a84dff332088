/* Replay a fuzz target's corpus without libFuzzer: every file in the given
 * directories goes through LLVMFuzzerTestOneInput once. Prints the harness
 * tally line; a missing or empty corpus is a failure (the seeds are committed). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static unsigned replay_dir(const char *dir, unsigned *failed)
{
    DIR *d = opendir(dir);
    if (!d) {
        printf("FAIL replay: cannot open corpus %s\n", dir);
        (*failed)++;
        return 0;
    }
    unsigned n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) {
            printf("FAIL replay: cannot read %s\n", path);
            (*failed)++;
            continue;
        }
        static uint8_t buf[1 << 20];
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        /* An exactly-sized copy, so ASan sees reads past the input. */
        uint8_t *copy = malloc(len ? len : 1);
        memcpy(copy, buf, len);
        LLVMFuzzerTestOneInput(copy, len);
        free(copy);
        n++;
    }
    closedir(d);
    if (n == 0) {
        printf("FAIL replay: corpus %s is empty\n", dir);
        (*failed)++;
    }
    return n;
}

int main(int argc, char **argv)
{
    unsigned passed = 0, failed = 0;
    if (argc < 2) {
        printf("FAIL replay: no corpus directory given\n");
        failed++;
    }
    for (int i = 1; i < argc; i++)
        passed += replay_dir(argv[i], &failed);
    printf("%u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
