#include "moonblade_line_editor.h"

#include <errno.h>
#include <fcntl.h>
#include <histedit.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

/// Text written while a line was being read, waiting for the editor's thread to show it above the line.
struct pending_text {
    int fd;
    size_t count;
    struct pending_text *next;
    char text[];
};

struct moonblade_line_editor {
    EditLine *el;
    History *history;
    char *prompt;
    char *history_path;
    char *line;
    int cancelled;
    moonblade_line_completer completer;
    void *completer_context;
    /// A pipe whose read end wakes the editor's thread, blocked for a key, when text is pending.
    int wake[2];
    /// Guards `reading` and the pending list, which other threads' writes touch.
    pthread_mutex_t lock;
    int reading;
    struct pending_text *first_pending, *last_pending;
};

static moonblade_line_editor *moonblade_editor_of(EditLine *el) {
    void *data = NULL;
    el_get(el, EL_CLIENTDATA, &data);
    return data;
}

static char *moonblade_prompt_of(EditLine *el) {
    return moonblade_editor_of(el)->prompt;
}

/// Writes all of `count` bytes to `fd`, retrying short and interrupted writes; 0, or -1 with errno.
static int moonblade_write_all(int fd, const char *text, size_t count) {
    while (count > 0) {
        ssize_t written = write(fd, text, count);
        if (written < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        text += written;
        count -= (size_t)written;
    }
    return 0;
}

static void moonblade_write_pending(struct pending_text *pending) {
    while (pending) {
        struct pending_text *next = pending->next;
        (void)moonblade_write_all(pending->fd, pending->text, pending->count);  // a terminal: nothing to report to
        free(pending);
        pending = next;
    }
}

/// Takes the pending texts; under the lock.
static struct pending_text *moonblade_take_pending(moonblade_line_editor *editor) {
    struct pending_text *taken = editor->first_pending;
    editor->first_pending = editor->last_pending = NULL;
    return taken;
}

/// Shows the pending texts above the line being edited: erases the prompt and the line (from the
/// row the prompt starts on), writes them, and has libedit draw the prompt and the line again.
static void moonblade_show_pending(moonblade_line_editor *editor) {
    char drained[64];
    while (read(editor->wake[0], drained, sizeof drained) > 0) {}
    pthread_mutex_lock(&editor->lock);
    struct pending_text *pending = moonblade_take_pending(editor);
    pthread_mutex_unlock(&editor->lock);
    if (!pending) return;
    int columns = 0;
    if (el_get(editor->el, EL_GETTC, "co", &columns) != 0 || columns <= 0) columns = 80;
    const LineInfoW *line = el_wline(editor->el);
    size_t before_cursor = strlen(editor->prompt) + (size_t)(line->cursor - line->buffer);
    char erase[32];
    int rows_up = (int)(before_cursor / (size_t)columns);
    int length = rows_up > 0 ? snprintf(erase, sizeof erase, "\033[%dA\r\033[J", rows_up)
                             : snprintf(erase, sizeof erase, "\r\033[J");
    (void)moonblade_write_all(STDOUT_FILENO, erase, (size_t)length);
    moonblade_write_pending(pending);
    el_set(editor->el, EL_REFRESH);
}

/// libedit's character reader: libedit's own (one byte at a time, decoded as the locale says), but
/// also woken by pending text, which it shows before it reads on.
static int moonblade_read_char(EditLine *el, wchar_t *character) {
    moonblade_line_editor *editor = moonblade_editor_of(el);
    char bytes[MB_LEN_MAX];
    size_t count = 0;
    while (1) {
        struct pollfd ready[2] = {{.fd = STDIN_FILENO, .events = POLLIN}, {.fd = editor->wake[0], .events = POLLIN}};
        if (poll(ready, 2, -1) < 0) {
            if (errno == EINTR) continue;
            *character = L'\0';
            return -1;
        }
        if (ready[1].revents & POLLIN) {
            moonblade_show_pending(editor);
            continue;
        }
        if (!(ready[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        ssize_t got = read(STDIN_FILENO, bytes + count, 1);
        if (got < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            *character = L'\0';
            return -1;
        }
        if (got == 0) {
            *character = L'\0';
            return 0;
        }
        count++;
        mbstate_t state;
        memset(&state, 0, sizeof state);
        size_t decoded = mbrtowc(character, bytes, count, &state);
        if (decoded == (size_t)-2 && count < MB_LEN_MAX) continue;  // more bytes of one character
        if (decoded == (size_t)-1 || decoded == (size_t)-2) {  // not a character: dropped, as libedit does
            count = 0;
            continue;
        }
        return 1;
    }
}

/// Ctrl-C: ends the line as if Enter was pressed, marked cancelled so the caller drops it.
static unsigned char moonblade_cancel_line(EditLine *el, int ch) {
    (void)ch;
    moonblade_editor_of(el)->cancelled = 1;
    return CC_NEWLINE;
}

/// The number of characters in `text` (bytes when it does not decode).
static int moonblade_characters_in(const char *text) {
    size_t count = mbstowcs(NULL, text, 0);
    return count == (size_t)-1 ? (int)strlen(text) : (int)count;
}

/// Lists `candidates` below the line, in columns as wide as the longest.
static void moonblade_list_candidates(EditLine *el, char **candidates, size_t count) {
    int columns = 0;
    if (el_get(el, EL_GETTC, "co", &columns) != 0 || columns <= 0) columns = 80;
    size_t widest = 0;
    for (size_t i = 0; i < count; i++) {
        size_t width = (size_t)moonblade_characters_in(candidates[i]);
        if (width > widest) widest = width;
    }
    size_t per_row = (size_t)columns / (widest + 2);
    if (per_row == 0) per_row = 1;
    (void)moonblade_write_all(STDOUT_FILENO, "\n", 1);
    for (size_t i = 0; i < count; i++) {
        (void)moonblade_write_all(STDOUT_FILENO, candidates[i], strlen(candidates[i]));
        int last_in_row = (i + 1) % per_row == 0 || i + 1 == count;
        if (last_in_row) {
            (void)moonblade_write_all(STDOUT_FILENO, "\n", 1);
        } else {
            for (size_t pad = (size_t)moonblade_characters_in(candidates[i]); pad < widest + 2; pad++) {
                (void)moonblade_write_all(STDOUT_FILENO, " ", 1);
            }
        }
    }
}

/// Tab: completes the word before the cursor with what the completer offers for it. One candidate
/// replaces the word (with a space after it, unless it is a folder); several extend it as far as
/// they agree, or, when they agree on nothing more, are listed below the line.
static unsigned char moonblade_complete_word(EditLine *el, int ch) {
    (void)ch;
    moonblade_line_editor *editor = moonblade_editor_of(el);
    if (!editor->completer) return CC_ERROR;
    const LineInfo *info = el_line(el);
    char *line = strndup(info->buffer, (size_t)(info->cursor - info->buffer));
    if (!line) return CC_ERROR;
    const char *space = strrchr(line, ' ');
    const char *word = space ? space + 1 : line;
    size_t word_length = strlen(word);
    char *offered = editor->completer(editor->completer_context, line);
    char *candidates[512];
    size_t count = 0;
    for (char *next = offered, *end; next && *next && count < 512; next = end ? end + 1 : NULL) {
        end = strchr(next, '\n');
        if (end) *end = '\0';
        if (*next) candidates[count++] = next;
    }
    size_t agreed = count > 0 ? strlen(candidates[0]) : 0;
    for (size_t i = 1; i < count; i++) {
        size_t same = 0;
        while (same < agreed && candidates[i][same] == candidates[0][same]) same++;
        agreed = same;
    }
    unsigned char outcome = CC_REFRESH;
    if (count == 0) {
        outcome = CC_REFRESH_BEEP;
    } else if (count == 1 || agreed > word_length) {
        char *replacement = strndup(candidates[0], count == 1 ? strlen(candidates[0]) : agreed);
        if (replacement) {
            el_deletestr(el, moonblade_characters_in(word));
            el_insertstr(el, replacement);
            size_t length = strlen(replacement);
            if (count == 1 && (length == 0 || replacement[length - 1] != '/')) el_insertstr(el, " ");
            free(replacement);
        }
    } else {
        moonblade_list_candidates(el, candidates, count);
        outcome = CC_REDISPLAY;
    }
    free(offered);
    free(line);
    return outcome;
}

moonblade_line_editor *moonblade_line_editor_open(const char *program, const char *prompt, const char *history_path) {
    moonblade_line_editor *editor = calloc(1, sizeof *editor);
    if (!editor) return NULL;
    editor->wake[0] = editor->wake[1] = -1;
    pthread_mutex_init(&editor->lock, NULL);
    editor->el = el_init(program, stdin, stdout, stderr);
    editor->history = history_init();
    if (!editor->el || !editor->history || pipe(editor->wake) != 0) {
        moonblade_line_editor_close(editor);
        return NULL;
    }
    for (int end = 0; end < 2; end++) {
        (void)fcntl(editor->wake[end], F_SETFD, FD_CLOEXEC);
        (void)fcntl(editor->wake[end], F_SETFL, O_NONBLOCK);
    }
    editor->prompt = strdup(prompt);
    editor->history_path = history_path ? strdup(history_path) : NULL;
    HistEvent event;
    history(editor->history, &event, H_SETSIZE, 1000);
    history(editor->history, &event, H_SETUNIQUE, 1);
    if (editor->history_path) history(editor->history, &event, H_LOAD, editor->history_path);
    el_set(editor->el, EL_CLIENTDATA, editor);
    el_set(editor->el, EL_EDITOR, "emacs");
    el_set(editor->el, EL_PROMPT, moonblade_prompt_of);
    el_set(editor->el, EL_HIST, history, editor->history);
    el_set(editor->el, EL_GETCFN, moonblade_read_char);
    el_set(editor->el, EL_ADDFN, "moonblade-cancel", "Cancel the line", moonblade_cancel_line);
    el_set(editor->el, EL_BIND, "^C", "moonblade-cancel", NULL);
    el_set(editor->el, EL_ADDFN, "moonblade-complete", "Complete the word", moonblade_complete_word);
    el_set(editor->el, EL_BIND, "^I", "moonblade-complete", NULL);
    el_set(editor->el, EL_BIND, "^R", "em-inc-search-prev", NULL);
    el_set(editor->el, EL_SETTY, "-d", "-isig", NULL);  // Ctrl-C reaches the bindings while editing
    el_source(editor->el, NULL);
    return editor;
}

void moonblade_line_editor_set_completer(
    moonblade_line_editor *editor, moonblade_line_completer completer, void *context
) {
    editor->completer = completer;
    editor->completer_context = context;
}

const char *moonblade_line_editor_read(moonblade_line_editor *editor, int *cancelled) {
    int count = 0;
    editor->cancelled = 0;
    pthread_mutex_lock(&editor->lock);
    editor->reading = 1;
    pthread_mutex_unlock(&editor->lock);
    const char *read = el_gets(editor->el, &count);
    pthread_mutex_lock(&editor->lock);
    editor->reading = 0;
    moonblade_write_pending(moonblade_take_pending(editor));  // what came after the last key: below the line read
    pthread_mutex_unlock(&editor->lock);
    *cancelled = editor->cancelled;
    if (!read || count <= 0) return NULL;
    free(editor->line);
    editor->line = strdup(read);
    if (!editor->line) return NULL;
    size_t length = strlen(editor->line);
    while (length > 0 && (editor->line[length - 1] == '\n' || editor->line[length - 1] == '\r')) {
        editor->line[--length] = '\0';
    }
    return editor->line;
}

int moonblade_line_editor_write(moonblade_line_editor *editor, int fd, const char *text, unsigned long count) {
    pthread_mutex_lock(&editor->lock);
    int result = 0;
    if (!editor->reading) {
        result = moonblade_write_all(fd, text, count);  // under the lock: no prompt can come between
    } else {
        struct pending_text *pending = malloc(sizeof *pending + count);
        if (!pending) {
            result = moonblade_write_all(fd, text, count);
        } else {
            pending->fd = fd;
            pending->count = count;
            pending->next = NULL;
            memcpy(pending->text, text, count);
            if (editor->last_pending) {
                editor->last_pending->next = pending;
            } else {
                editor->first_pending = pending;
            }
            editor->last_pending = pending;
            char wake = 1;
            (void)write(editor->wake[1], &wake, 1);  // a full pipe already wakes the reader
        }
    }
    int saved = errno;
    pthread_mutex_unlock(&editor->lock);
    errno = saved;
    return result;
}

void moonblade_line_editor_remember(moonblade_line_editor *editor, const char *line) {
    HistEvent event;
    history(editor->history, &event, H_ENTER, line);
    if (editor->history_path) history(editor->history, &event, H_SAVE, editor->history_path);
}

void moonblade_line_editor_close(moonblade_line_editor *editor) {
    if (!editor) return;
    if (editor->el) el_end(editor->el);
    if (editor->history) history_end(editor->history);
    moonblade_write_pending(moonblade_take_pending(editor));
    for (int end = 0; end < 2; end++) {
        if (editor->wake[end] >= 0) close(editor->wake[end]);
    }
    pthread_mutex_destroy(&editor->lock);
    free(editor->prompt);
    free(editor->history_path);
    free(editor->line);
    free(editor);
}
