// The resident state's machinery in C (drafts, views, finishing): what the Swift part of the resident
// state (MoonbladeResidentState) calls. See machinery.c.

#ifndef MOONBLADE_RESIDENT_STATE_H
#define MOONBLADE_RESIDENT_STATE_H

#include "LuaGuest.h"

/// The chunk name of the machinery's bit of Lua (it copies sequences): host glue, where no error of a
/// plugin's belongs.
const char *moonblade_state_chunk_name(void);

/// The Lua function (a `lua_CFunction`) that sets up the resident state's machinery in its VM: called
/// with the array and object kind markers, it returns `{ apply, abandon, view, machinery }` (see
/// machinery.c and LuaResidentState). Raises only memory errors: call it protected.
int moonblade_open_state_machinery(lua_State *L);

/// Pushes what a decode of the resident state reads beside it, given the machinery at `machinery`:
/// the decoding cache's identities (table -> id, weak keys) and id -> table (weak values), then the
/// change records the finish of the `apply` numbered `session` built (the second result `apply`
/// returns; pass 0 for none): the table of every changed table's record but the new root's, then the
/// new root's record; each nil when there is none, once a decode has read them, or once a later `apply`
/// has started (`moonblade_state_drop_changes` and `apply` empty them). Returns whether it pushed any
/// record. Needs 5 free slots; never raises.
int moonblade_state_push_decoding_tables(lua_State *L, int machinery, lua_Integer session);

/// Replaces the machinery at `machinery` with its id -> table table (weak values), where the
/// decoding cache finds the tables of the values it keeps. Never raises.
void moonblade_state_replace_with_tables(lua_State *L, int machinery);

/// Drops the change records of the last `apply` (given the machinery at `machinery`), once the state
/// they describe is decoded: they would otherwise keep the tables it replaced alive until the next
/// `apply`. Needs 4 free slots; never raises.
void moonblade_state_drop_changes(lua_State *L, int machinery);

#endif
