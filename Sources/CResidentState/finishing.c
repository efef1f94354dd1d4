// Finishing what an updater left into the next version. Invariant: the resident tree is the host's
// and immutable: every modified draft becomes its copy with child drafts resolved, every unmodified one
// its base (so an unchanged subtree keeps its identity), and tables the plugin made are deep-copied
// (its metatables and later writes never reach the state). Each new table that came from an older one
// files a change record (`{ older table, changed key, ... }`), which the decoding cache reads to decode
// only what changed. A cycle or a state nested too deep is an error, never a loop.

#include "resident.h"

/// Pushes what the draft whose record is at `r` shows once finished, and returns 1: its final table,
/// or its base when it was never written. Returns 0, pushing nothing, when it was written but is not
/// finished yet.
static int push_shown(lua_State *L, int r) {
    draft_record *record = lua_touserdata(L, r);
    if (record->has_copy && !record->finalized) return 0;
    lua_getiuservalue(L, r, record->finalized == FINAL_COPY ? R_COPY : R_BASE);
    return 1;
}

/// Whether `copy` (at `c`), made from the sequence `base` of `n` items by the changed keys in `list`,
/// is a sequence too (the same checks as LuaTableChanges.patchedArray); pushes its length if so.
static int sequence_length(lua_State *L, int c, lua_Integer n, int list) {
    lua_Integer m = (lua_Integer)lua_rawlen(L, c), grown = 0, shrunk = 0, count = (lua_Integer)lua_rawlen(L, list);
    for (lua_Integer i = 2; i <= count; i++) {
        lua_rawgeti(L, list, i);
        if (!lua_isinteger(L, -1)) {
            lua_pop(L, 1);
            return 0;
        }
        lua_Integer k = lua_tointeger(L, -1);
        lua_pop(L, 1);
        int present = lua_rawgeti(L, c, k) != LUA_TNIL;
        lua_pop(L, 1);
        if (present) {
            if (k < 1 || k > m) return 0;
            if (k > n) grown++;
        } else if (k <= m) {
            return 0;
        } else if (k <= n) {
            shrunk++;
        }
    }
    if (grown != (m > n ? m - n : 0) || shrunk != (n > m ? n - m : 0)) return 0;
    lua_pushinteger(L, m);
    return 1;
}

/// Files the change record at `list` of the new table at `copy` in CHANGES.
static void file_changes(lua_State *L, int m, int copy, int list) {
    session_table(L, m, M_CHANGES);
    lua_pushvalue(L, copy);
    lua_pushvalue(L, list);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    ((state_machine *)lua_touserdata(L, m))->change_count++;
}

/// `rs_finalize` of a draft no key of which was given a table or set back to its base's value: every
/// key listed holds a new value that needs no resolving, so the change record stands as it is and the
/// copy is final, with no second pass over the keys.
static void finalize_listed(lua_State *L, int m, int r) {
    draft_record *record = lua_touserdata(L, r);
    lua_getiuservalue(L, r, R_COPY);
    int copy = lua_gettop(L);
    if (!record->is_root) {  // the root's: `rs_file_root_changes`
        lua_getiuservalue(L, r, R_CHANGES);
        file_changes(L, m, copy, copy + 1);
        lua_pop(L, 1);
    }
    if (record->base_length >= 0) {
        lua_getiuservalue(L, r, R_CHANGES);
        if (sequence_length(L, copy, record->base_length, copy + 1)) {
            store(L, m, M_SEQ, copy, -1);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    record->finalized = FINAL_COPY;
}

/// Pushes what the draft whose record is at `r` finishes as: its copy with every change resolved and
/// a change record in CHANGES, or its base when nothing in it changed.
void rs_finalize(lua_State *L, int m, int r) {
    r = lua_absindex(L, r);
    draft_record *record = lua_touserdata(L, r);
    if (push_shown(L, r)) {  // finished before, or never written: its base
        if (!record->finalized) record->finalized = FINAL_BASE;
        return;
    }
    state_machine *machine = record->machine;
    if (!record->may_list_twice && !record->holds_tables && record->listed > 0) {
        finalize_listed(L, m, r);
        return;
    }
    if (record->busy) raise_plain(L, "the new state contains a table that contains itself (a cycle)");
    enter_nested(L, machine);
    record->busy = 1;
    int top = lua_gettop(L);
    lua_getiuservalue(L, r, R_COPY);
    int copy = top + 1;
    lua_getiuservalue(L, r, R_BASE);
    int base = top + 2;
    lua_getiuservalue(L, r, R_CHANGES);
    int list = top + 3;
    // A key set back to its base value and written again is listed twice: list it once.
    int seen = 0;
    if (record->may_list_twice) {
        lua_createtable(L, 0, record->listed > INT_MAX ? INT_MAX : (int)record->listed);
        seen = lua_gettop(L);
    }
    lua_Integer kept = 0;
    for (lua_Integer i = 2; i <= record->listed + 1; i++) {
        lua_rawgeti(L, list, i);
        int key = lua_gettop(L);
        if (seen) {
            lua_pushvalue(L, key);
            int met = lua_rawget(L, seen) != LUA_TNIL;
            lua_pop(L, 1);
            if (met) {
                lua_settop(L, key - 1);
                continue;
            }
            lua_pushvalue(L, key);
            lua_pushboolean(L, 1);
            lua_rawset(L, seen);
        }
        lua_pushvalue(L, key);
        if (lua_rawget(L, copy) == LUA_TTABLE) {
            rs_resolve(L, m, -1);
            lua_pushvalue(L, key);
            lua_pushvalue(L, -2);
            lua_rawset(L, copy);
        }
        int value = lua_gettop(L);
        lua_pushvalue(L, key);
        lua_rawget(L, base);
        // The record keeps only the keys whose value differs from the base's.
        if (!same_value(L, value, -1)) {
            lua_pushvalue(L, key);
            lua_rawseti(L, list, 1 + ++kept);
        }
        lua_settop(L, key - 1);
    }
    for (lua_Integer i = kept + 2; i <= record->listed + 1; i++) {
        lua_pushnil(L);
        lua_rawseti(L, list, i);
    }
    record->busy = 0;
    machine->depth--;
    if (kept > 0) {
        if (!record->is_root) file_changes(L, m, copy, list);  // the root's: `rs_file_root_changes`
        if (record->base_length >= 0 && sequence_length(L, copy, record->base_length, list)) {
            store(L, m, M_SEQ, copy, -1);
        }
        lua_settop(L, copy);
    } else {
        lua_settop(L, base);
        lua_remove(L, copy);
    }
    // The final table is now at top + 1, alone above what the caller had.
    record->finalized = kept > 0 ? FINAL_COPY : FINAL_BASE;
}

/// Pushes a copy of the table at `t` the plugin built (a payload, a returned state), with drafts,
/// views and nested tables in it resolved: the resident tree is the host's.
static void own(lua_State *L, int m, int t) {
    t = lua_absindex(L, t);
    session_table(L, m, M_OWNED);
    int owned_tables = lua_gettop(L);
    lua_pushvalue(L, t);
    if (lua_rawget(L, owned_tables) == LUA_TTABLE) {
        if (lookup(L, m, M_BUSY, t) != LUA_TNIL) {
            raise_plain(L, "the new state contains a table that contains itself (a cycle)");
        }
        lua_pop(L, 1);
        lua_remove(L, owned_tables);
        return;
    }
    lua_pop(L, 1);
    state_machine *machine = lua_touserdata(L, m);
    enter_nested(L, machine);
    // raw length and raw reads: a plugin's `__len` or `__index` must not run here.
    lua_Integer n = (lua_Integer)lua_rawlen(L, t), count = 0, positions = 0;
    lua_createtable(L, n > INT_MAX ? INT_MAX : (int)n, 0);
    int owned = lua_gettop(L);
    keep_kind(L, m, t);
    lua_pushvalue(L, t);
    lua_pushvalue(L, owned);
    lua_rawset(L, owned_tables);
    session_table(L, m, M_BUSY);
    int busy = lua_gettop(L);
    lua_pushvalue(L, t);
    lua_pushboolean(L, 1);
    lua_rawset(L, busy);
    lua_pushnil(L);
    while (lua_next(L, t)) {
        int value = lua_gettop(L), key = value - 1;
        count++;
        positions += is_position(L, key, n);
        rs_resolve(L, m, key);
        rs_resolve(L, m, value);
        lua_rawset(L, owned);
        lua_settop(L, key);
    }
    moonblade_count_steps(L, count);
    if (count == positions && positions == n) {
        lua_pushinteger(L, n);
        store(L, m, M_SEQ, owned, -1);
        lua_pop(L, 1);
    }
    lua_pushvalue(L, t);
    lua_pushnil(L);
    lua_rawset(L, busy);
    machine->depth--;
    lua_settop(L, owned);
    lua_remove(L, owned_tables);
}

/// Pushes the value at `value` as the new state holds it.
void rs_resolve(lua_State *L, int m, int value) {
    value = lua_absindex(L, value);
    if (lua_type(L, value) != LUA_TTABLE) {
        lua_pushvalue(L, value);
    } else if (has_metatable(L, m, value, M_DRAFT_MT)) {
        draft_record *record = record_of(L, value);
        // Only a table the plugin made can hold a draft of an earlier updater (a draft refuses one).
        if (!record || record->session != ((state_machine *)lua_touserdata(L, m))->last_session) {
            raise_plain(L, "the new state holds a state draft that was revoked when its updater returned");
        }
        rs_finalize(L, m, -1);
        lua_replace(L, -2);
    } else if (has_metatable(L, m, value, M_VIEW_MT)) {
        lookup(L, m, M_VIEW, value);
    } else {
        own(L, m, value);
    }
}

/// Up to this many entries, CHANGES is emptied for the next session rather than made again: a small
/// dispatch then allocates no table for it. Past it, walking the emptied table would cost more.
enum { REUSED_CHANGES_LIMIT = 32 };

void rs_end_session(lua_State *L, int m) {
    state_machine *machine = lua_touserdata(L, m);
    machine->live_session = 0;
    machine->fresh_count = 0;
    draft_record *root = machine->root_record;
    if (root->has_children) {  // the root record outlives its drafts: it must not keep them
        root->has_children = 0;
        lua_getiuservalue(L, m, M_ROOT_RECORD);
        lua_pushnil(L);
        lua_setiuservalue(L, -2, R_CHILDREN);
        lua_pop(L, 1);
    }
    if (!machine->made_session_tables) return;
    machine->made_session_tables = 0;
    for (int which = M_FRESH; which <= M_STANDS; which++) {
        if (which == M_CHANGES) continue;  // read by the decode that follows; emptied after it
        lua_pushnil(L);
        lua_setiuservalue(L, m, which);
    }
}

/// Empties CHANGES of the last session's records (the pending state they describe was decoded or
/// dropped by now), keeping the table when it held few. Raises nothing: it only sets fields to nil.
void rs_clear_changes(lua_State *L, int m) {
    state_machine *machine = lua_touserdata(L, m);
    machine->has_root_changes = 0;  // the root record's own, which its next first key empties
    if (machine->change_count == 0) return;
    if (machine->change_count > REUSED_CHANGES_LIMIT) {
        lua_pushnil(L);
        lua_setiuservalue(L, m, M_CHANGES);
    } else {
        lua_getiuservalue(L, m, M_CHANGES);
        int changes = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, changes)) {
            lua_pop(L, 1);
            lua_pushvalue(L, -1);
            lua_pushnil(L);
            lua_rawset(L, changes);  // clearing a field during the traversal is allowed (lua_next)
        }
        lua_pop(L, 1);
    }
    machine->change_count = 0;
}

/// Files the change record of the draft the updater was handed (record at `r`), if it finished as
/// a new table: it stays the root record's, apart from CHANGES, when that table is the new root at
/// `root` (the decoder then finds it without a look-up), else it goes in CHANGES like any other.
void rs_file_root_changes(lua_State *L, int m, int r, int root) {
    draft_record *record = lua_touserdata(L, r);
    if (record->finalized != FINAL_COPY) return;
    lua_getiuservalue(L, r, R_COPY);
    if (lua_rawequal(L, -1, root)) {
        record->machine->has_root_changes = 1;
    } else {
        lua_getiuservalue(L, r, R_CHANGES);
        file_changes(L, m, lua_gettop(L) - 1, lua_gettop(L));
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}
