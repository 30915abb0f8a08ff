/* A small engine for the arena's text protocol (docs/protocol.md): Connect Four and tic-tac-toe.
 *
 * C99 and POSIX libc only, one file:  cc -O2 -o engine engine.c
 * The same design as examples/engines/python/engine.py: both games are k-in-a-row games on
 * a rows x columns board (Connect Four adds gravity), searched by iterative-deepening
 * negamax with alpha-beta over a heuristic of open lines kept up to date move by move. The
 * node count (the root and every position the search creates) honours `go nodes N`.
 * While searching it polls stdin for `stop`, `quit` and `isready`; other lines wait.
 */
#define _POSIX_C_SOURCE 200809L
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXCELLS 256            /* connect4 up to 16 x 16; tictactoe up to 64 cells */
#define MAXWIN (4 * MAXCELLS)
#define MAXK 64
#define MAXPLY (MAXCELLS + 2)
#define WIN 1000000000          /* a win with s stones on the board scores WIN - s */
#define INF 2000000000
#define LINE 65536

static const char LETTERS[] = "abcdefghijklmnopqrstuvwxyz";

/* ---- the board ---- */
static int gravity, rows, cols, K, ncells, scoring_moves, nwin;
static short through[MAXCELLS][4 * MAXK];
static int nthrough[MAXCELLS];
static unsigned char counts[2][MAXWIN];
static int gain[MAXK][MAXK + 1];     /* the mover's gain in a window where it has a, they b */
static double scale;
static int order[MAXCELLS], norder;  /* moves in a fixed order, the centre first */
static unsigned char cell_of[MAXCELLS];
static int heights[16], stones, score; /* score: open lines from the first player's view */
static int hist_cell[MAXCELLS], hist_score[MAXCELLS];

static int add_window(int r, int c, int dr, int dc, int id) {
    int i;
    if (r + dr * (K - 1) < 0 || r + dr * (K - 1) >= rows || c + dc * (K - 1) < 0 || c + dc * (K - 1) >= cols)
        return 0;
    for (i = 0; i < K; i++) {
        int cell = (r + dr * i) * cols + c + dc * i;
        through[cell][nthrough[cell]++] = (short)id;
    }
    return 1;
}

static double centre_distance(int x) {
    double dr = x / cols - (rows - 1) / 2.0, dc = x % cols - (cols - 1) / 2.0;
    return (dr < 0 ? -dr : dr) + (dc < 0 ? -dc : dc);
}

static int before(int a, int b) { /* move a is tried before move b */
    if (gravity) {
        double da = a - (cols - 1) / 2.0, db = b - (cols - 1) / 2.0;
        da = da < 0 ? -da : da;
        db = db < 0 ? -db : db;
        return da != db ? da < db : a < b;
    }
    if (nthrough[a] != nthrough[b]) return nthrough[a] > nthrough[b];
    if (centre_distance(a) != centre_distance(b)) return centre_distance(a) < centre_distance(b);
    return a < b;
}

static void setup(void) {
    static const int dirs[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    int r, c, d, a, b, i, j, weight[MAXK + 2];
    ncells = rows * cols;
    nwin = 0;
    memset(nthrough, 0, sizeof nthrough);
    for (r = 0; r < rows; r++)
        for (c = 0; c < cols; c++)
            for (d = 0; d < (K == 1 ? 1 : 4); d++)
                nwin += add_window(r, c, dirs[d][0], dirs[d][1], nwin);
    for (a = 0; a <= K + 1; a++) weight[a] = a * a * a;
    for (a = 0; a < K; a++)
        for (b = 0; b <= K; b++) {
            int now = b == 0 ? weight[a] : a == 0 ? -weight[b] : 0;
            int next = b == 0 ? weight[a + 1] : 0;
            gain[a][b] = next - now;
        }
    scale = 0.9 / (double)(nwin * weight[K > 1 ? K - 1 : 1] > 0 ? nwin * weight[K > 1 ? K - 1 : 1] : 1);
    norder = gravity ? cols : ncells;
    for (i = 0; i < norder; i++) order[i] = i;
    for (i = 1; i < norder; i++) /* insertion sort: a few hundred moves at most */
        for (j = i; j > 0 && before(order[j], order[j - 1]); j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
}

static void reset(void) {
    memset(cell_of, 0, sizeof cell_of);
    memset(heights, 0, sizeof heights);
    memset(counts, 0, sizeof counts);
    stones = score = 0;
}

static int gen_moves(int *out) {
    int i, n = 0;
    for (i = 0; i < norder; i++) {
        int m = order[i];
        if (gravity ? heights[m] < rows : !cell_of[m]) out[n++] = m;
    }
    return n;
}

static int play(int move) { /* returns 1 if the move completes a line */
    int cell = gravity ? heights[move]++ * cols + move : move;
    int p = stones & 1, i, d = 0, won = 0;
    unsigned char *mine = counts[p], *theirs = counts[1 - p];
    cell_of[cell] = (unsigned char)(p + 1);
    for (i = 0; i < nthrough[cell]; i++) {
        int w = through[cell][i], a = mine[w];
        d += gain[a][theirs[w]];
        mine[w] = (unsigned char)(a + 1);
        won |= a + 1 == K;
    }
    hist_cell[stones] = cell;
    hist_score[stones] = score;
    score += p == 0 ? d : -d;
    stones++;
    return won;
}

static void undo(void) {
    int cell, i;
    unsigned char *mine;
    stones--;
    cell = hist_cell[stones];
    score = hist_score[stones];
    cell_of[cell] = 0;
    if (gravity) heights[cell % cols]--;
    mine = counts[stones & 1];
    for (i = 0; i < nthrough[cell]; i++) mine[through[cell][i]]--;
}

static void format_move(int m, char *out) {
    if (gravity) sprintf(out, "%d", m + 1);
    else sprintf(out, "%c%d", LETTERS[m % cols], m / cols + 1);
}

static int parse_move(const char *t) { /* the move, or -1 */
    char *end;
    long n;
    if (gravity || (t[0] >= '0' && t[0] <= '9')) {
        n = strtol(t, &end, 10);
        if (*end || end == t || n < 1 || n > (gravity ? cols : ncells)) return -1;
        return (int)n - 1;
    }
    if (t[0] < 'a' || t[0] - 'a' >= cols || t[1] < '0' || t[1] > '9') return -1;
    n = strtol(t + 1, &end, 10);
    if (*end || n < 1 || n > rows) return -1;
    return ((int)n - 1) * cols + (t[0] - 'a');
}

/* ---- the game spec ---- */
static int number(const char *value, int low, int high, int *out) {
    char *end;
    long n = strtol(value, &end, 10);
    if (*end || end == value || n < low || n > high) return 0;
    *out = (int)n;
    return 1;
}

/* Reads `name:key=value,...`; on failure writes why into problem and returns 0. */
static int load_game(char *spec, char *problem) {
    char *params = strchr(spec, ':'), *piece;
    int connect4;
    if (params) *params++ = '\0';
    connect4 = strcmp(spec, "connect4") == 0;
    if (!connect4 && strcmp(spec, "tictactoe") != 0) {
        sprintf(problem, "this engine plays connect4 and tictactoe, not '%.200s'", spec);
        return 0;
    }
    gravity = connect4;
    rows = connect4 ? 6 : 3;
    cols = connect4 ? 7 : 3;
    K = connect4 ? 4 : 3;
    scoring_moves = 0;
    for (piece = params ? strtok(params, ",") : NULL; piece; piece = strtok(NULL, ",")) {
        char *value = strchr(piece, '=');
        int ok = 0;
        if (value) {
            *value++ = '\0';
            if (!strcmp(piece, "rows")) ok = number(value, 1, connect4 ? 16 : 64, &rows);
            else if (!strcmp(piece, "columns")) ok = number(value, 1, connect4 ? 16 : 26, &cols);
            else if (!strcmp(piece, connect4 ? "connect" : "k")) ok = number(value, 1, MAXK, &K);
            else if (connect4 && !strcmp(piece, "scoring")) {
                ok = !strcmp(value, "win") || !strcmp(value, "moves");
                scoring_moves = !strcmp(value, "moves");
            }
        }
        if (!ok) {
            sprintf(problem, "cannot play %.100s with %.100s=%.100s", spec, piece, value ? value : "");
            return 0;
        }
    }
    if (rows * cols > (connect4 ? MAXCELLS : 64) || K > (rows > cols ? rows : cols)) {
        sprintf(problem, "cannot play %.100s on %d x %d with %d in a row", spec, rows, cols, K);
        return 0;
    }
    setup();
    reset();
    return 1;
}

/* ---- input: a buffer of what stdin has sent, read whole lines from it ---- */
static char inbuf[LINE];
static size_t inlen;
static int in_eof;

static void read_more(int block) {
    struct pollfd p = {0, POLLIN, 0};
    ssize_t n;
    if (in_eof || inlen == sizeof inbuf) return;
    if (!block && poll(&p, 1, 0) <= 0) return;
    n = read(0, inbuf + inlen, sizeof inbuf - inlen);
    if (n <= 0) in_eof = 1;
    else inlen += (size_t)n;
}

/* Removes the line starting at `at` (length len, its newline included) from the buffer. */
static void drop(size_t at, size_t len) {
    memmove(inbuf + at, inbuf + at + len, inlen - at - len);
    inlen -= len;
}

static int next_line(char *out) { /* blocks; 0 at the end of input */
    for (;;) {
        char *nl = memchr(inbuf, '\n', inlen);
        if (nl) {
            size_t len = (size_t)(nl - inbuf);
            memcpy(out, inbuf, len);
            out[len] = '\0';
            if (len && out[len - 1] == '\r') out[len - 1] = '\0';
            drop(0, len + 1);
            return 1;
        }
        if (in_eof) return 0;
        if (inlen == sizeof inbuf) inlen = 0; /* a line too long to be protocol: dropped */
        read_more(1);
    }
}

static void send(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vprintf(fmt, args);
    va_end(args);
    putchar('\n');
    fflush(stdout);
}

/* ---- the search ---- */
static long long nodes, node_limit;
static double start, deadline; /* deadline 0: none */
static int quitting, max_depth = 64, debug;
static int pv[MAXPLY][MAXPLY], pvlen[MAXPLY];
static jmp_buf aborted;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* Reads what stdin has sent: `stop` and `quit` end the search, `isready` is answered, other
 * lines stay in the buffer for the main loop. */
static void check(void) {
    size_t at = 0;
    int stop = 0;
    read_more(0);
    while (at < inlen) {
        char *nl = memchr(inbuf + at, '\n', inlen - at);
        size_t len;
        if (!nl) break;
        len = (size_t)(nl - (inbuf + at));
        if (len && inbuf[at + len - 1] == '\r') len--;
#define IS(word) (len == sizeof word - 1 && !memcmp(inbuf + at, word, len))
        if (IS("stop") || IS("quit") || IS("isready")) {
            if (IS("isready")) send("readyok");
            else stop = 1;
            if (IS("quit")) quitting = 1;
            drop(at, (size_t)(nl - (inbuf + at)) + 1);
        } else {
            at = (size_t)(nl - inbuf) + 1;
        }
#undef IS
    }
    if (in_eof) quitting = stop = 1;
    if (stop || (deadline > 0 && now() >= deadline)) longjmp(aborted, 1);
}

static int negamax(int depth, int alpha, int beta, int ply);

/* Plays `move` at `ply`: its score for the mover; pv[ply + 1] is the line after it. */
static int child(int move, int depth, int alpha, int beta, int ply) {
    int s;
    if (nodes >= node_limit) longjmp(aborted, 1);
    if (!(++nodes & 2047)) check();
    pvlen[ply + 1] = 0;
    if (play(move)) s = WIN - stones;
    else if (stones == ncells) s = 0;
    else if (depth == 1) s = stones & 1 ? score : -score; /* the mover's view */
    else s = -negamax(depth - 1, -beta, -alpha, ply + 1);
    undo();
    return s;
}

static void keep_line(int ply, int move) {
    pv[ply][0] = move;
    memcpy(pv[ply] + 1, pv[ply + 1], sizeof(int) * (size_t)pvlen[ply + 1]);
    pvlen[ply] = pvlen[ply + 1] + 1;
}

static int negamax(int depth, int alpha, int beta, int ply) {
    int moves[MAXCELLS], n = gen_moves(moves), i, best = -INF;
    pvlen[ply] = 0;
    for (i = 0; i < n; i++) {
        int s = child(moves[i], depth, alpha, beta, ply);
        if (s > best) {
            best = s;
            if (s > alpha) {
                alpha = s;
                keep_line(ply, moves[i]);
                if (alpha >= beta) break;
            }
        }
    }
    return best;
}

static void info(int depth, int value, const int *line, int len) {
    char text[LINE], *at = text;
    int i;
    text[0] = '\0';
    for (i = 0; i < len; i++) {
        *at++ = ' ';
        format_move(line[i], at);
        at += strlen(at);
    }
    printf("info depth %d nodes %lld time %d score ", depth, nodes, (int)((now() - start) * 1000));
    if (value >= WIN - ncells - 1 || value <= -(WIN - ncells - 1)) { /* proven: the game's units */
        int s = WIN - (value > 0 ? value : -value);
        int u = scoring_moves ? (ncells + 1) / 2 + 1 - (s + 1) / 2 : 1;
        printf("%d", value > 0 ? u : -u);
    } else {
        printf("%.4f", value * scale);
    }
    send(" pv%s", text);
    if (debug) fprintf(stderr, "depth %d nodes %lld\n", depth, nodes);
}

/* One iteration: the root's value at depth d, its line in pv[0]. */
static int root(int d, const int *moves, int n) {
    int alpha = -INF, i;
    for (i = 0; i < n; i++) {
        int s = child(moves[i], d, alpha, INF, 0);
        if (s > alpha) {
            alpha = s;
            keep_line(0, moves[i]);
        }
    }
    return alpha;
}

/* Iterative deepening until a limit; returns the best move (-1 when there is none). */
static int go(long long limit, int depth_limit, double seconds) {
    int moves[MAXCELLS], ordered[MAXCELLS], n = gen_moves(moves), line[MAXPLY], i, k, d, top, base = stones;
    volatile int best, value = 0, done = 0, len = 0; /* kept across the longjmp of an abort */
    nodes = 1; /* the root */
    node_limit = limit;
    start = now();
    deadline = seconds > 0 ? start + seconds : 0;
    if (!n) return -1;
    best = line[0] = moves[0];
    top = depth_limit < ncells - stones ? depth_limit : ncells - stones;
    for (d = 1; d <= top; d++) {
        int s;
        if (setjmp(aborted)) {
            while (stones > base) undo(); /* the moves the aborted search left on the board */
            break;
        }
        ordered[0] = best; /* the last iteration's best first, the others in their order */
        for (i = 0, k = 1; i < n; i++)
            if (moves[i] != best) ordered[k++] = moves[i];
        s = root(d, ordered, n);
        best = pv[0][0];
        value = s;
        done = d;
        len = pvlen[0];
        memcpy(line, pv[0], sizeof(int) * (size_t)len);
        info(done, value, line, len);
        if (value >= WIN - ncells - 1 || value <= -(WIN - ncells - 1)) break; /* proven */
    }
    info(done, value, line, len ? len : 1); /* the total nodes, which the arena records */
    return best;
}

/* ---- the protocol ---- */
static long long arg(char **words, int n, const char *key, long long otherwise) {
    int i;
    for (i = 0; i + 1 < n; i++)
        if (!strcmp(words[i], key)) return atoll(words[i + 1]);
    return otherwise;
}

int main(void) {
    static char line[LINE], copy[LINE], problem[512];
    char *words[LINE / 2];
    int have_game = 0, n;
    problem[0] = '\0';
    while (!quitting && next_line(line)) {
        memcpy(copy, line, sizeof line);
        for (n = 0, words[0] = strtok(copy, " "); words[n]; words[++n] = strtok(NULL, " "))
            ;
        if (!n) continue;
        if (!strcmp(words[0], "quit")) break;
        if (!strcmp(words[0], "arena")) {
            send("id name cengine 1.0");
            send("id author botarena examples");
            send("option name MaxDepth type spin default 64 min 1 max 64");
            send("option name Debug type check default false");
            send("arenaok");
        } else if (!strcmp(words[0], "setoption") && n >= 5 && !strcmp(words[1], "name") && !strcmp(words[3], "value")) {
            if (!strcmp(words[2], "MaxDepth") && atoi(words[4]) >= 1) max_depth = atoi(words[4]) < 64 ? atoi(words[4]) : 64;
            else if (!strcmp(words[2], "Debug")) debug = !strcmp(words[4], "true");
            else fprintf(stderr, "ignored: %s\n", line);
        } else if (!strcmp(words[0], "game") && n >= 2) {
            problem[0] = '\0';
            have_game = load_game(line + 5, problem);
        } else if (!strcmp(words[0], "isready")) {
            if (problem[0]) send("error %s", problem);
            else send("readyok");
        } else if (!strcmp(words[0], "newgame") && have_game) {
            reset();
        } else if (!strcmp(words[0], "position") && have_game && n >= 2 && !strcmp(words[1], "start")) {
            int i;
            reset();
            for (i = 3; i < n && !strcmp(words[2], "moves"); i++) {
                int m = parse_move(words[i]), legal = 0, moves[MAXCELLS], k = gen_moves(moves), j;
                for (j = 0; j < k; j++) legal |= moves[j] == m;
                if (!legal || play(m)) {
                    fprintf(stderr, "bad position: move '%s' is illegal or ends the game\n", words[i]);
                    break;
                }
            }
        } else if (!strcmp(words[0], "go") && have_game) {
            char *me = stones & 1 ? "time1" : "time0", *inc = stones & 1 ? "inc1" : "inc0";
            long long movetime = arg(words, n, "movetime", -1), left = arg(words, n, me, -1);
            double seconds = 0;
            int best;
            char text[32];
            if (movetime >= 0) /* answer a little early */
                seconds = (movetime - (movetime / 10 < 50 ? movetime / 10 : 50)) / 1000.0;
            if (left >= 0) {
                double share = (left / 20.0 + arg(words, n, inc, 0) / 2.0) / 1000.0;
                if (share > left / 2000.0) share = left / 2000.0;
                if (seconds <= 0 || share < seconds) seconds = share;
            }
            if (seconds <= 0 && (movetime >= 0 || left >= 0)) seconds = 0.001;
            best = go(arg(words, n, "nodes", (long long)1 << 62), (int)arg(words, n, "depth", max_depth), seconds);
            if (quitting) break; /* told to quit mid-search: no bestmove is owed */
            if (best < 0) strcpy(text, "(none)");
            else format_move(best, text);
            send("bestmove %s", text);
        } else if (strcmp(words[0], "stop") != 0) { /* a stop with no search running has nothing to stop */
            fprintf(stderr, "ignored: %s\n", line);
        }
    }
    return 0;
}
