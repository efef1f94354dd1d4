// Line editing and history for `moonblade repl`, through libedit (Debian: libedit-dev).
//
// A thin layer over libedit's histedit API, so that Swift needs no C callbacks: libedit's prompt and
// key-binding callbacks are C functions here, and Ctrl-C in the line editor cancels the line (it
// comes through as a key: the terminal's signal keys are off while a line is edited).

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

/// Adds `line` to the history, and saves the history file.
void moonblade_line_editor_remember(moonblade_line_editor *editor, const char *line);

void moonblade_line_editor_close(moonblade_line_editor *editor);

#endif
