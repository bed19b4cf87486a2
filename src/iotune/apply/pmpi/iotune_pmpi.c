/* iotune's PMPI library: an application's own MPI-IO time, measured from inside (paper 001, Sec. IV-A, Fig. 2).
 *
 * Preloaded (LD_PRELOAD) into an MPI application, it wraps the MPI-IO calls through the MPI profiling interface:
 *
 * - tuning module: at every MPI_File_open it sets the hints of the ROMIO-style hints file IOTUNE_PMPI_HINTS names
 *   ("key value" lines) on the MPI_Info the application passed (a copy), so they take effect with no change to the
 *   application and nothing in the environment;
 * - monitoring module: each rank adds up the seconds spent inside MPI-IO calls (open, close, delete, sync, set_size,
 *   preallocate, set_view, every read and write: independent, collective, _at, _shared, _ordered, split collective,
 *   nonblocking with the time of the MPI_Wait/Test calls that complete them, and the MPI-4 large-count _c forms) and
 *   the bytes each read or write asked for (count x the datatype's size). At MPI_Finalize the slowest rank's time is
 *   taken with MPI_Allreduce (MAX; "the longest one ... indicates time of an effective I/O operation", paper 001),
 *   bytes and files are summed, and rank 0 writes a JSON result to the file IOTUNE_PMPI_OUT names.
 *
 * HDF5, NetCDF-4 and other libraries over MPI-IO call these same functions, so their I/O is counted too. A call made
 * from inside another wrapped call (ROMIO's own) is counted once. Files are counted by name, each by the rank 0 of
 * the communicator that opened it. The hints asked and in effect (MPI_File_get_info) are recorded per file for the
 * first MAX_FILES distinct files rank 0 of MPI_COMM_WORLD opened. Threads of a rank may call MPI-IO at once
 * (MPI_THREAD_MULTIPLE): their times add up to the rank's.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_HINTS 64
#define MAX_FILES 64
#define MAX_NAMES 4096
#define MAX_REQUESTS 4096
#define RESULT_VERSION 1

static char hint_keys[MAX_HINTS][MPI_MAX_INFO_KEY + 1];
static char hint_values[MAX_HINTS][MPI_MAX_INFO_VAL + 1];
static int hint_count = -1; /* -1: the hints file is not read yet */
static char hints_error[512];

static double io_seconds;
static long long bytes_read, bytes_written, opens, files_led;
static __thread int depth; /* > 0 while this thread is inside a wrapped call */
/* Guards every figure and table below: a rank's threads may call MPI-IO at once (MPI_THREAD_MULTIPLE); their
 * times then add up. */
static pthread_mutex_t state = PTHREAD_MUTEX_INITIALIZER;
static double init_time = -1.0;

static unsigned long long names[MAX_NAMES];
static int name_count;

static struct {
    char *name;
    char *in_effect; /* JSON object text */
} files[MAX_FILES];
static int file_count;
static long long files_not_recorded;

static MPI_Request requests[MAX_REQUESTS];
static int request_count;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void load_hints(void)
{
    const char *path = getenv("IOTUNE_PMPI_HINTS");
    char line[MPI_MAX_INFO_KEY + MPI_MAX_INFO_VAL + 8];
    FILE *in;
    if (hint_count >= 0)
        return;
    hint_count = 0;
    if (path == NULL || *path == '\0')
        return;
    in = fopen(path, "r");
    if (in == NULL) {
        snprintf(hints_error, sizeof hints_error, "cannot read the hints file");
        return;
    }
    while (fgets(line, sizeof line, in) != NULL) {
        char *key = line + strspn(line, " \t"), *value, *end;
        size_t key_length = strcspn(key, " \t\r\n");
        if (key_length == 0 || key[0] == '#')
            continue;
        value = key + key_length;
        value += strspn(value, " \t");
        end = value + strlen(value);
        while (end > value && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
            end--;
        if (hint_count == MAX_HINTS || key_length > MPI_MAX_INFO_KEY || (size_t)(end - value) > MPI_MAX_INFO_VAL) {
            snprintf(hints_error, sizeof hints_error, "more than %d hints, or a hint too long", MAX_HINTS);
            break;
        }
        memcpy(hint_keys[hint_count], key, key_length);
        hint_keys[hint_count][key_length] = '\0';
        memcpy(hint_values[hint_count], value, (size_t)(end - value));
        hint_values[hint_count][end - value] = '\0';
        hint_count++;
    }
    fclose(in);
}

static long long bytes_of(MPI_Datatype datatype, MPI_Count count)
{
    MPI_Count size = 0;
    PMPI_Type_size_x(datatype, &size);
    return (long long)(size * count);
}

static void remember(MPI_Request request)
{
    if (request_count < MAX_REQUESTS && request != MPI_REQUEST_NULL)
        requests[request_count++] = request;
}

/* Whether any of the requests is an outstanding I/O request. */
static int pending_io(int count, const MPI_Request *some)
{
    for (int i = 0; i < count; i++)
        for (int j = 0; j < request_count; j++)
            if (some[i] != MPI_REQUEST_NULL && requests[j] == some[i])
                return 1;
    return 0;
}

static void forget(MPI_Request request)
{
    for (int j = 0; j < request_count; j++)
        if (requests[j] == request) {
            requests[j] = requests[--request_count];
            return;
        }
}

static unsigned long long hash(const char *text)
{
    unsigned long long h = 1469598103934665603ULL; /* FNV-1a */
    for (; *text; text++)
        h = (h ^ (unsigned char)*text) * 1099511628211ULL;
    return h;
}

/* Whether ``name`` is opened for the first time by this rank (remembered up to MAX_NAMES names). */
static int first_open(const char *name)
{
    unsigned long long h = hash(name);
    for (int i = 0; i < name_count; i++)
        if (names[i] == h)
            return 0;
    if (name_count < MAX_NAMES)
        names[name_count++] = h;
    return 1;
}

/* ``text`` as a JSON string appended at ``out`` (at most ``room`` bytes with the terminating NUL); bytes written. */
static size_t json_string(char *out, size_t room, const char *text)
{
    size_t n = 0;
    if (room < 3)
        return 0;
    out[n++] = '"';
    for (; *text && n + 8 < room; text++) {
        unsigned char c = (unsigned char)*text;
        if (c == '"' || c == '\\') {
            out[n++] = '\\';
            out[n++] = (char)c;
        } else if (c < 0x20) {
            n += (size_t)snprintf(out + n, room - n, "\\u%04x", c);
        } else {
            out[n++] = (char)c;
        }
    }
    out[n++] = '"';
    out[n] = '\0';
    return n;
}

static char *info_json(MPI_Info info)
{
    size_t room = 64 * (MPI_MAX_INFO_KEY + MPI_MAX_INFO_VAL), n = 0;
    char *out = malloc(room), key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
    int keys = 0;
    if (out == NULL)
        return NULL;
    out[n++] = '{';
    PMPI_Info_get_nkeys(info, &keys);
    for (int i = 0; i < keys && n + 2 * (MPI_MAX_INFO_KEY + MPI_MAX_INFO_VAL) < room; i++) {
        int flag = 0;
        PMPI_Info_get_nthkey(info, i, key);
#if MPI_VERSION >= 4
        int length = MPI_MAX_INFO_VAL + 1;
        PMPI_Info_get_string(info, key, &length, value, &flag);
#else
        PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
#endif
        if (!flag)
            continue;
        if (n > 1)
            out[n++] = ',';
        n += json_string(out + n, room - n, key);
        out[n++] = ':';
        n += json_string(out + n, room - n, value);
    }
    out[n++] = '}';
    out[n] = '\0';
    return out;
}

static void record_file(const char *name, MPI_File fh)
{
    MPI_Info info;
    for (int i = 0; i < file_count; i++)
        if (strcmp(files[i].name, name) == 0)
            return;
    if (file_count == MAX_FILES) {
        files_not_recorded++;
        return;
    }
    if (PMPI_File_get_info(fh, &info) != MPI_SUCCESS)
        return;
    files[file_count].name = strdup(name);
    files[file_count].in_effect = info_json(info);
    PMPI_Info_free(&info);
    if (files[file_count].name != NULL && files[file_count].in_effect != NULL)
        file_count++;
}

#define TIMED(call, counter, bytes)                                                                                  \
    do {                                                                                                             \
        double begin_ = now();                                                                                       \
        depth++;                                                                                                     \
        int rc_ = call;                                                                                              \
        depth--;                                                                                                     \
        if (depth == 0) {                                                                                            \
            pthread_mutex_lock(&state);                                                                              \
            io_seconds += now() - begin_;                                                                            \
            if (rc_ == MPI_SUCCESS)                                                                                  \
                counter += (bytes);                                                                                  \
            pthread_mutex_unlock(&state);                                                                            \
        }                                                                                                            \
        return rc_;                                                                                                  \
    } while (0)

#define TIMED_REQUEST(call, counter, bytes)                                                                          \
    do {                                                                                                             \
        double begin_ = now();                                                                                       \
        depth++;                                                                                                     \
        int rc_ = call;                                                                                              \
        depth--;                                                                                                     \
        if (depth == 0) {                                                                                            \
            pthread_mutex_lock(&state);                                                                              \
            io_seconds += now() - begin_;                                                                            \
            if (rc_ == MPI_SUCCESS) {                                                                                \
                counter += (bytes);                                                                                  \
                remember(*request);                                                                                  \
            }                                                                                                        \
            pthread_mutex_unlock(&state);                                                                            \
        }                                                                                                            \
        return rc_;                                                                                                  \
    } while (0)

static long long no_bytes;

/* Blocking reads and writes, without and with an explicit offset. */
#define BLOCKING(fn, qualifier, counter, count_type)                                                                 \
    int MPI_File_##fn(MPI_File fh, qualifier void *buf, count_type count, MPI_Datatype datatype,                     \
                      MPI_Status *status)                                                                            \
    {                                                                                                                \
        TIMED(PMPI_File_##fn(fh, buf, count, datatype, status), counter, bytes_of(datatype, count));                 \
    }
#define BLOCKING_AT(fn, qualifier, counter, count_type)                                                              \
    int MPI_File_##fn(MPI_File fh, MPI_Offset offset, qualifier void *buf, count_type count, MPI_Datatype datatype,  \
                      MPI_Status *status)                                                                            \
    {                                                                                                                \
        TIMED(PMPI_File_##fn(fh, offset, buf, count, datatype, status), counter, bytes_of(datatype, count));         \
    }
#define NONBLOCKING(fn, qualifier, counter, count_type)                                                              \
    int MPI_File_##fn(MPI_File fh, qualifier void *buf, count_type count, MPI_Datatype datatype,                     \
                      MPI_Request *request)                                                                          \
    {                                                                                                                \
        TIMED_REQUEST(PMPI_File_##fn(fh, buf, count, datatype, request), counter, bytes_of(datatype, count));        \
    }
#define NONBLOCKING_AT(fn, qualifier, counter, count_type)                                                           \
    int MPI_File_##fn(MPI_File fh, MPI_Offset offset, qualifier void *buf, count_type count, MPI_Datatype datatype,  \
                      MPI_Request *request)                                                                          \
    {                                                                                                                \
        TIMED_REQUEST(PMPI_File_##fn(fh, offset, buf, count, datatype, request), counter,                            \
                      bytes_of(datatype, count));                                                                    \
    }
#define BEGIN(fn, qualifier, counter, count_type)                                                                    \
    int MPI_File_##fn(MPI_File fh, qualifier void *buf, count_type count, MPI_Datatype datatype)                     \
    {                                                                                                                \
        TIMED(PMPI_File_##fn(fh, buf, count, datatype), counter, bytes_of(datatype, count));                         \
    }
#define BEGIN_AT(fn, qualifier, counter, count_type)                                                                 \
    int MPI_File_##fn(MPI_File fh, MPI_Offset offset, qualifier void *buf, count_type count, MPI_Datatype datatype)  \
    {                                                                                                                \
        TIMED(PMPI_File_##fn(fh, offset, buf, count, datatype), counter, bytes_of(datatype, count));                 \
    }
#define END(fn, qualifier)                                                                                           \
    int MPI_File_##fn(MPI_File fh, qualifier void *buf, MPI_Status *status)                                          \
    {                                                                                                                \
        TIMED(PMPI_File_##fn(fh, buf, status), no_bytes, 0);                                                         \
    }

#define WRITES(suffix, count_type)                                                                                   \
    BLOCKING(write##suffix, const, bytes_written, count_type)                                                        \
    BLOCKING(write_all##suffix, const, bytes_written, count_type)                                                    \
    BLOCKING(write_shared##suffix, const, bytes_written, count_type)                                                 \
    BLOCKING(write_ordered##suffix, const, bytes_written, count_type)                                                \
    BLOCKING_AT(write_at##suffix, const, bytes_written, count_type)                                                  \
    BLOCKING_AT(write_at_all##suffix, const, bytes_written, count_type)                                              \
    NONBLOCKING(iwrite##suffix, const, bytes_written, count_type)                                                    \
    NONBLOCKING(iwrite_all##suffix, const, bytes_written, count_type)                                                \
    NONBLOCKING(iwrite_shared##suffix, const, bytes_written, count_type)                                             \
    NONBLOCKING_AT(iwrite_at##suffix, const, bytes_written, count_type)                                              \
    NONBLOCKING_AT(iwrite_at_all##suffix, const, bytes_written, count_type)                                          \
    BEGIN(write_all_begin##suffix, const, bytes_written, count_type)                                                 \
    BEGIN(write_ordered_begin##suffix, const, bytes_written, count_type)                                             \
    BEGIN_AT(write_at_all_begin##suffix, const, bytes_written, count_type)

#define READS(suffix, count_type)                                                                                    \
    BLOCKING(read##suffix, , bytes_read, count_type)                                                                 \
    BLOCKING(read_all##suffix, , bytes_read, count_type)                                                             \
    BLOCKING(read_shared##suffix, , bytes_read, count_type)                                                          \
    BLOCKING(read_ordered##suffix, , bytes_read, count_type)                                                         \
    BLOCKING_AT(read_at##suffix, , bytes_read, count_type)                                                           \
    BLOCKING_AT(read_at_all##suffix, , bytes_read, count_type)                                                       \
    NONBLOCKING(iread##suffix, , bytes_read, count_type)                                                             \
    NONBLOCKING(iread_all##suffix, , bytes_read, count_type)                                                         \
    NONBLOCKING(iread_shared##suffix, , bytes_read, count_type)                                                      \
    NONBLOCKING_AT(iread_at##suffix, , bytes_read, count_type)                                                       \
    NONBLOCKING_AT(iread_at_all##suffix, , bytes_read, count_type)                                                   \
    BEGIN(read_all_begin##suffix, , bytes_read, count_type)                                                          \
    BEGIN(read_ordered_begin##suffix, , bytes_read, count_type)                                                      \
    BEGIN_AT(read_at_all_begin##suffix, , bytes_read, count_type)

WRITES(, int)
READS(, int)
#if MPI_VERSION >= 4
WRITES(_c, MPI_Count)
READS(_c, MPI_Count)
#endif
END(write_all_end, const)
END(write_at_all_end, const)
END(write_ordered_end, const)
END(read_all_end, )
END(read_at_all_end, )
END(read_ordered_end, )

int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    MPI_Info used = info;
    int rc, rank = 0, world_rank = 0;
    double begin;
    if (depth > 0)
        return PMPI_File_open(comm, filename, amode, info, fh);
    pthread_mutex_lock(&state);
    load_hints();
    pthread_mutex_unlock(&state);
    if (hint_count > 0) {
        if (info == MPI_INFO_NULL)
            PMPI_Info_create(&used);
        else
            PMPI_Info_dup(info, &used);
        for (int i = 0; i < hint_count; i++)
            PMPI_Info_set(used, hint_keys[i], hint_values[i]);
    }
    begin = now();
    depth++;
    rc = PMPI_File_open(comm, filename, amode, used, fh);
    depth--;
    pthread_mutex_lock(&state);
    io_seconds += now() - begin;
    pthread_mutex_unlock(&state);
    if (used != info)
        PMPI_Info_free(&used);
    if (rc != MPI_SUCCESS)
        return rc;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    pthread_mutex_lock(&state);
    opens++;
    if (rank == 0 && first_open(filename))
        files_led++;
    if (world_rank == 0)
        record_file(filename, *fh);
    pthread_mutex_unlock(&state);
    return rc;
}

int MPI_File_close(MPI_File *fh) { TIMED(PMPI_File_close(fh), no_bytes, 0); }
int MPI_File_delete(const char *filename, MPI_Info info) { TIMED(PMPI_File_delete(filename, info), no_bytes, 0); }
int MPI_File_sync(MPI_File fh) { TIMED(PMPI_File_sync(fh), no_bytes, 0); }
int MPI_File_set_size(MPI_File fh, MPI_Offset size) { TIMED(PMPI_File_set_size(fh, size), no_bytes, 0); }
int MPI_File_preallocate(MPI_File fh, MPI_Offset size) { TIMED(PMPI_File_preallocate(fh, size), no_bytes, 0); }

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info)
{
    TIMED(PMPI_File_set_view(fh, disp, etype, filetype, datarep, info), no_bytes, 0);
}

/* Completing a nonblocking I/O request: its wait is I/O time (the whole call's, when it also waits on others).
 * A request the call completed is set to MPI_REQUEST_NULL by MPI: those that changed are forgotten. */
#define COMPLETING(count, array, call)                                                                               \
    do {                                                                                                             \
        double begin_;                                                                                               \
        int rc_, n_ = (count), io_ = 0;                                                                              \
        MPI_Request *before_;                                                                                        \
        if (depth == 0 && n_ > 0) {                                                                                  \
            pthread_mutex_lock(&state);                                                                              \
            io_ = request_count > 0 && pending_io(n_, array);                                                        \
            pthread_mutex_unlock(&state);                                                                            \
        }                                                                                                            \
        if (!io_)                                                                                                    \
            return call;                                                                                             \
        before_ = malloc((size_t)n_ * sizeof *before_);                                                              \
        if (before_ != NULL)                                                                                         \
            memcpy(before_, array, (size_t)n_ * sizeof *before_);                                                    \
        begin_ = now();                                                                                              \
        depth++;                                                                                                     \
        rc_ = call;                                                                                                  \
        depth--;                                                                                                     \
        pthread_mutex_lock(&state);                                                                                  \
        io_seconds += now() - begin_;                                                                                \
        for (int i_ = 0; before_ != NULL && i_ < n_; i_++)                                                           \
            if (before_[i_] != (array)[i_])                                                                          \
                forget(before_[i_]);                                                                                 \
        pthread_mutex_unlock(&state);                                                                                \
        free(before_);                                                                                               \
        return rc_;                                                                                                  \
    } while (0)

int MPI_Wait(MPI_Request *request, MPI_Status *status) { COMPLETING(1, request, PMPI_Wait(request, status)); }
int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses)
{
    COMPLETING(count, array_of_requests, PMPI_Waitall(count, array_of_requests, array_of_statuses));
}
int MPI_Waitany(int count, MPI_Request array_of_requests[], int *indx, MPI_Status *status)
{
    COMPLETING(count, array_of_requests, PMPI_Waitany(count, array_of_requests, indx, status));
}
int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                 MPI_Status array_of_statuses[])
{
    COMPLETING(incount, array_of_requests,
               PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses));
}
int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    COMPLETING(1, request, PMPI_Test(request, flag, status));
}
int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
    COMPLETING(count, array_of_requests, PMPI_Testall(count, array_of_requests, flag, array_of_statuses));
}

int MPI_Request_free(MPI_Request *request)
{
    pthread_mutex_lock(&state);
    forget(*request);
    pthread_mutex_unlock(&state);
    return PMPI_Request_free(request);
}

static void started(void)
{
    pthread_mutex_lock(&state);
    init_time = now();
    load_hints();
    pthread_mutex_unlock(&state);
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    started();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    started();
    return rc;
}

static void write_result(const char *path, int ranks, double slowest, double fastest, const long long *sums)
{
    char temporary[4096], text[2 * (MPI_MAX_INFO_KEY + MPI_MAX_INFO_VAL) + 16];
    FILE *out;
    snprintf(temporary, sizeof temporary, "%s.partial", path);
    out = fopen(temporary, "w");
    if (out == NULL) {
        fprintf(stderr, "iotune PMPI: cannot write %s\n", temporary);
        return;
    }
    fprintf(out, "{\"version\": %d, \"ranks\": %d, \"io_seconds\": %.9f, \"io_seconds_fastest_rank\": %.9f, "
                 "\"bytes_read\": %lld, \"bytes_written\": %lld, \"files\": %lld, \"opens\": %lld, "
                 "\"seconds_in_mpi\": %.9f, \"hints_error\": ",
            RESULT_VERSION, ranks, slowest, fastest, sums[0], sums[1], sums[2], sums[3],
            init_time < 0 ? 0.0 : now() - init_time);
    if (hints_error[0]) {
        json_string(text, sizeof text, hints_error);
        fputs(text, out);
    } else {
        fputs("null", out);
    }
    fputs(", \"asked\": {", out);
    for (int i = 0; i < hint_count; i++) {
        json_string(text, sizeof text, hint_keys[i]);
        fprintf(out, "%s%s: ", i ? ", " : "", text);
        json_string(text, sizeof text, hint_values[i]);
        fputs(text, out);
    }
    fprintf(out, "}, \"files_not_recorded\": %lld, \"file_records\": [", files_not_recorded);
    for (int i = 0; i < file_count; i++) {
        json_string(text, sizeof text, files[i].name);
        fprintf(out, "%s{\"name\": %s, \"in_effect\": %s}", i ? ", " : "", text, files[i].in_effect);
    }
    fputs("]}\n", out);
    if (fclose(out) != 0 || rename(temporary, path) != 0)
        fprintf(stderr, "iotune PMPI: cannot write %s\n", path);
}

int MPI_Finalize(void)
{
    const char *path = getenv("IOTUNE_PMPI_OUT");
    int rank = 0, ranks = 1;
    double slowest = 0.0, fastest = 0.0;
    long long mine[4] = {bytes_read, bytes_written, files_led, opens}, sums[4] = {0, 0, 0, 0};
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &ranks);
    PMPI_Allreduce(&io_seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    PMPI_Allreduce(&io_seconds, &fastest, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    PMPI_Allreduce(mine, sums, 4, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && path != NULL && *path != '\0')
        write_result(path, ranks, slowest, fastest, sums);
    return PMPI_Finalize();
}
