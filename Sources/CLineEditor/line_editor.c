#include "moonblade_line_editor.h"

#include <histedit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct moonblade_line_editor {
    EditLine *el;
    History *history;
    char *prompt;
    char *history_path;
    char *line;
    int cancelled;
};

static moonblade_line_editor *moonblade_editor_of(EditLine *el) {
    void *data = NULL;
    el_get(el, EL_CLIENTDATA, &data);
    return data;
}

static char *moonblade_prompt_of(EditLine *el) {
    return moonblade_editor_of(el)->prompt;
}

/// Ctrl-C: ends the line as if Enter was pressed, marked cancelled so the caller drops it.
static unsigned char moonblade_cancel_line(EditLine *el, int ch) {
    (void)ch;
    moonblade_editor_of(el)->cancelled = 1;
    return CC_NEWLINE;
}

moonblade_line_editor *moonblade_line_editor_open(const char *program, const char *prompt, const char *history_path) {
    moonblade_line_editor *editor = calloc(1, sizeof *editor);
    if (!editor) return NULL;
    editor->el = el_init(program, stdin, stdout, stderr);
    editor->history = history_init();
    if (!editor->el || !editor->history) {
        moonblade_line_editor_close(editor);
        return NULL;
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
    el_set(editor->el, EL_ADDFN, "moonblade-cancel", "Cancel the line", moonblade_cancel_line);
    el_set(editor->el, EL_BIND, "^C", "moonblade-cancel", NULL);
    el_set(editor->el, EL_BIND, "^R", "em-inc-search-prev", NULL);
    el_set(editor->el, EL_SETTY, "-d", "-isig", NULL);  // Ctrl-C reaches the bindings while editing
    el_source(editor->el, NULL);
    return editor;
}

const char *moonblade_line_editor_read(moonblade_line_editor *editor, int *cancelled) {
    int count = 0;
    editor->cancelled = 0;
    const char *read = el_gets(editor->el, &count);
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

void moonblade_line_editor_remember(moonblade_line_editor *editor, const char *line) {
    HistEvent event;
    history(editor->history, &event, H_ENTER, line);
    if (editor->history_path) history(editor->history, &event, H_SAVE, editor->history_path);
}

void moonblade_line_editor_close(moonblade_line_editor *editor) {
    if (!editor) return;
    if (editor->el) el_end(editor->el);
    if (editor->history) history_end(editor->history);
    free(editor->prompt);
    free(editor->history_path);
    free(editor->line);
    free(editor);
}
