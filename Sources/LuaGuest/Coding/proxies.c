// Proxy tables (the resident state's drafts and views) read as the plain tables they stand for, so
// that state a plugin passes on (`ctx.deps.storage.write { value = ctx.state().todos }`) is read by
// the coders as the data it shows, not as an empty proxy. The proxies' own target says how
// (`moonblade_proxy_class`); nothing here knows what a draft is. Invariant: reading a proxy so never
// raises and never runs plugin code.

#include "LuaGuest.h"

const char moonblade_proxy_key = 0;

int moonblade_resolve_proxy(lua_State *L, int index) {
    // A table without a metatable is no proxy (the coders ask this of every root value they decode).
    if (lua_type(L, index) != LUA_TTABLE || !lua_checkstack(L, 2)) return 0;
    index = lua_absindex(L, index);
    if (!lua_getmetatable(L, index)) return 0;
    int found = lua_rawgetp(L, -1, &moonblade_proxy_key) == LUA_TLIGHTUSERDATA;
    const moonblade_proxy_class *class = found ? lua_touserdata(L, -1) : NULL;
    lua_pop(L, 2);
    return class ? class->push_plain(L, index) : 0;
}
