// Line editing and history for `moonblade repl`, through libedit (Debian: libedit-dev).
//
// A thin layer over libedit's histedit API: libedit's prompt, key-binding and character-reading
// callbacks are C functions here, so Swift gives only one, the completer Tab asks. Ctrl-C in the line
// editor cancels the line (it comes through as a key: the terminal's signal keys are off while a line
// is edited). Text other threads write while a line is edited goes above it, and the prompt and the
// line are drawn again below.

#ifndef MOONBLADE_LINE_EDITOR_H
#define MOONBLADE_LINE_EDITOR_H

typedef struct moonblade_line_editor moonblade_line_editor;

/// An editor reading the terminal on standard input with `prompt`, its history loaded from
/// `history_path` (NULL for none) and saved there after each remembered line. NULL if libedit
/// cannot start.
moonblade_line_editor *moonblade_line_editor_open(const char *program, const char *prompt, const char *history_path);

/// Reads one line (arrow keys, Ctrl-R search and the rest of libedit's emacs bindings, ~/.editrc).
/// Returns it without its newline, valid until the next call, or NULL at the end of input (Ctrl-D).
/// `*cancelled` is set to 1 when Ctrl-C cancelled the line, else 0.
const char *moonblade_line_editor_read(moonblade_line_editor *editor, int *cancelled);

/// What Tab completes with: called on the reading thread with `context` and the line up to the cursor,
/// it returns the words that may replace the line's last word (the text after its last space), one a
/// line, in a string from `malloc` that the editor frees; NULL or "" for none.
typedef char *(*moonblade_line_completer)(void *context, const char *line);

/// Sets the completer Tab calls (none at first: Tab then does nothing); before the first read.
void moonblade_line_editor_set_completer(
    moonblade_line_editor *editor, moonblade_line_completer completer, void *context);

/// Writes `count` bytes of `text` to descriptor `fd` (standard output or error, the terminal). While a
/// line is being read, they go above it: the prompt and the line so far are erased, the text written,
/// and both drawn again below it (by the reading thread, at once). Any thread may call it. Returns 0,
/// or -1 with `errno` set when the write failed.
int moonblade_line_editor_write(moonblade_line_editor *editor, int fd, const char *text, unsigned long count);

/// Adds `line` to the history, and saves the history file.
void moonblade_line_editor_remember(moonblade_line_editor *editor, const char *line);

void moonblade_line_editor_close(moonblade_line_editor *editor);

#endif
