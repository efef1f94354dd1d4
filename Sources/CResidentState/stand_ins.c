// Views put back into a draft. Invariant: a view put at two places of one updater's state, or a view
// and its parts put back in either order, are one table there, as a plain table is. The key given a
// view gets the resident table it shows, and that key's child draft stands, for the rest of the
// updater, for that table (STANDS; a view is one per table); drafts read below a stand-in stand for
// the tables below; a part put back finds the draft standing for its table, or reads down to it from
// one standing for a table above; a whole put back takes in the parts put back before it.

#include "resident.h"

/// Records that the draft whose record is at `r` (its proxy just below) stands for the resident table
/// at `node` a view shows: the next view of that table put back, or reached below another one, is
/// that draft.
void rs_stands_for(lua_State *L, int m, int r, int node) {
    r = lua_absindex(L, r);
    node = lua_absindex(L, node);
    ((draft_record *)lua_touserdata(L, r))->stands = 1;
    session_table(L, m, M_STANDS);
    lua_pushvalue(L, node);
    lua_pushvalue(L, r - 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

/// For `rs_draft_read` below a draft standing for the table a view shows (record at `r`), when `key`
/// still holds what it holds there (`value`): the child stands for the table below. When another
/// draft of this updater stands for that table already (a part of the view put back before), pushes
/// that draft and returns 1: it is stored at `key`, so that finishing resolves it there, and is not
/// made this draft's child (a write to the key would cut it from the parent it has). Else pushes the
/// table the child stands for (nil when it stands for none) and returns 0.
int rs_push_standing_child(lua_State *L, int m, int r, int key, int value) {
    luaL_checkstack(L, 12, "the state is nested too deep");
    draft_record *record = lua_touserdata(L, r);
    if (record->has_copy) {  // a key the updater assigned holds what the view does not
        lua_getiuservalue(L, r, R_BASE);
        lua_pushvalue(L, key);
        lua_rawget(L, -2);
        int same = lua_rawequal(L, -1, value);
        lua_pop(L, 2);
        if (!same) {
            lua_pushnil(L);
            return 0;
        }
    }
    lua_pushvalue(L, value);
    int node = lua_gettop(L);
    if (lookup(L, m, M_STANDS, node) == LUA_TTABLE) {
        record_of(L, -1);
        lua_getiuservalue(L, -1, R_BASE);
        int stands = lua_rawequal(L, -1, value);
        lua_pop(L, 2);
        if (stands) {
            if (!record->has_copy) {
                rs_prepare(L, m, r);
                lua_pop(L, 1);
            }
            rs_draft_write(L, m, r, key, node + 1);
            lua_remove(L, node);
            return 1;
        }
    }
    lua_pop(L, 1);
    return 0;
}

/// Reads `keys[from]`, ..., `keys[to]` (either way) down from the draft on top, as the plugin would, and
/// pops it: below a draft standing for a view's table, `rs_draft_read` makes the drafts standing for the
/// tables below, or hands out the ones that do already.
static void read_down(lua_State *L, int m, int keys, int from, int to) {
    int step = from <= to ? 1 : -1;
    for (int i = from; i != to + step; i += step) {
        if (!record_of(L, -1)) {  // no draft (a value the plugin put there): nothing below to read
            lua_pop(L, 1);
            break;
        }
        lua_rawgeti(L, keys, i);
        rs_draft_read(L, m, lua_gettop(L) - 1, lua_gettop(L), 1);
        lua_replace(L, -4);
        lua_pop(L, 2);
    }
    lua_pop(L, 1);
}

/// Walks up from the view at `walker` (replaced as it goes) through the view each was last read from
/// this session, writing the keys they were read at into `keys`. Returns how many once it reaches a
/// view of the resident table `target` or, with `target` 0, of one a draft stands for (that draft then
/// pushed); 0, pushing nothing, when it reaches neither.
static int walk_up_views(lua_State *L, int m, int walker, int keys, int target) {
    for (int count = 1; count <= MAXIMUM_DEPTH; count++) {
        if (lookup(L, m, M_STANDS, walker) != LUA_TTABLE) {  // read from no view this session
            lua_pop(L, 1);
            return 0;
        }
        lookup(L, m, M_VIEWOF, walker);
        lua_rawseti(L, keys, count);
        lua_replace(L, walker);
        lookup(L, m, M_VIEW, walker);  // the resident table it shows
        if (target) {
            int reached = lua_rawequal(L, -1, target);
            lua_pop(L, 1);
            if (reached) return count;
        } else if (lookup(L, m, M_STANDS, -1) == LUA_TTABLE) {
            lua_remove(L, -2);
            return count;
        } else {
            lua_pop(L, 2);
        }
    }
    return 0;
}

/// Pushes the node of the place the view at `x` shows: its resident table (a view is one per table
/// and shows it at every place). When no draft stands for it yet but one stands for a view it was read
/// from (the view's whole was put back first), reads the keys down from that one.
static void push_view_node(lua_State *L, int m, int x, int shown) {
    int top = lua_gettop(L);
    lua_pushvalue(L, shown);  // the node, at top + 1
    session_table(L, m, M_STANDS);
    int stands = top + 2;
    lua_pushvalue(L, top + 1);
    if (lua_rawget(L, stands) == LUA_TTABLE) {
        lua_settop(L, top + 1);
        return;
    }
    lua_pop(L, 1);
    lua_createtable(L, 8, 0);  // the keys up from `x`, at top + 3
    lua_pushvalue(L, x);  // the walker, at top + 4
    int count = walk_up_views(L, m, top + 4, top + 3, 0);
    if (count) read_down(L, m, top + 3, count, 1);
    lua_settop(L, top + 1);
}

/// Puts in place of the table value at 3 of `draft_newindex` (record at 4) what it stands for when it
/// is a view: the draft of this updater standing for the table it shows, if one does (it or a part of
/// it, or a whole it is part of, was put back before: one table there, as a plain table put at two
/// places is); else the table it shows, so that reading it back gives a draft of it, written like any
/// other part of the state, and returns STORED_VIEW with that table at 5 and the view at 6, for
/// `rs_stand_for_shown`. A draft of an earlier updater is revoked: storing it raises. Any other table,
/// with a metatable of its own or none, is the plugin's: STORED_PLUGIN_TABLE.
int rs_settle_stored_table(lua_State *L, int m, lua_Integer live_session) {
    if (!lua_getmetatable(L, 3)) return STORED_PLUGIN_TABLE;
    lua_getiuservalue(L, m, M_DRAFT_MT);
    lua_getiuservalue(L, m, M_VIEW_MT);
    int draft = lua_rawequal(L, -2, -3), view = lua_rawequal(L, -1, -3);
    lua_settop(L, 4);
    // A table the plugin made and gave a metatable of its own is the plugin's as much as one without:
    // read back, it is itself (its `__index`, `__len` working), not a draft of it as if it were the
    // resident state's, whose writes went to a copy the table itself never saw.
    if (!draft && !view) return STORED_PLUGIN_TABLE;
    if (draft) {
        draft_record *stored = record_of(L, 3);
        if (!stored || stored->session != live_session) rs_raise_revoked(L);
        lua_settop(L, 4);
        return STORED_AS_IS;
    }
    lookup(L, m, M_VIEW, 3);
    // Below the metamethod's own slots: the walks' values, then `rs_draft_read` making child drafts.
    luaL_checkstack(L, 24, "the state is nested too deep");
    push_view_node(L, m, 3, 5);
    if (lookup(L, m, M_STANDS, -1) == LUA_TTABLE) {  // made by the walk
        lua_replace(L, 3);
        lua_settop(L, 4);
        return STORED_AS_IS;
    }
    lua_pop(L, 1);  // the table at 6 is the one at 5: a view's place is its table
    lua_pushvalue(L, 3);
    lua_copy(L, 5, 3);
    lua_copy(L, 7, 6);  // the view
    lua_settop(L, 6);
    return STORED_VIEW;
}

/// The key of VIEW_PARTS in STANDS: the views put back this session, a sequence (see `link_parts`).
static const char view_parts_key = 0;

/// Pushes VIEW_PARTS and returns its type (nil when no view was put back this session).
static int view_parts(lua_State *L, int m) {
    session_table(L, m, M_STANDS);
    int type = lua_rawgetp(L, -1, &view_parts_key);
    lua_remove(L, -2);
    return type;
}

/// After the draft at `s` came to stand for the resident table at `node` a view shows: the parts of it
/// put back before it, which drafts stand for, become its parts, as in a plain table put back after its
/// parts: reading down to each from `s` hands it out there (its proxy stored on the path), so that
/// written through either place, it is written at both. Its parts are the views put back this session
/// read (last) from it or below it.
static void link_parts(lua_State *L, int m, int s, int node) {
    int top = lua_gettop(L);
    lua_createtable(L, 8, 0);  // the keys of a path, at top + 1
    int keys = top + 1;
    if (view_parts(L, m) == LUA_TTABLE) {  // at top + 2
        lua_Integer parts = (lua_Integer)lua_rawlen(L, top + 2);
        for (lua_Integer i = 1; i <= parts; i++) {
            lua_rawgeti(L, top + 2, i);  // the walker, at top + 3
            int count = walk_up_views(L, m, top + 3, keys, node);
            if (count) {
                lua_pushvalue(L, s);
                read_down(L, m, keys, count, 1);
            }
            lua_settop(L, top + 2);
        }
    }
    lua_settop(L, top);
}

/// After key 2 of the draft whose record is at 4 was given the resident table at 5 a view (at 6)
/// shows: the key's child draft stands for that table for the rest of the updater, and the parts of
/// it put back before are its parts (`link_parts`).
void rs_stand_for_shown(lua_State *L, int m) {
    luaL_checkstack(L, 16, "the state is nested too deep");
    // The key holds that table (neither a draft nor the plugin's): its child. Not one standing for the
    // table the key had in what the draft at 4 may stand for: another table is there now.
    rs_draft_read(L, m, 4, 2, 0);
    int child = lua_gettop(L);
    if (!record_of(L, child)) return;
    rs_stands_for(L, m, child + 1, 5);
    link_parts(L, m, child, 5);
    if (view_parts(L, m) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 4, 0);
        session_table(L, m, M_STANDS);
        lua_pushvalue(L, -2);
        lua_rawsetp(L, -2, &view_parts_key);
        lua_pop(L, 1);
    }
    lua_pushvalue(L, 6);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
}
