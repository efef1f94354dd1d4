/// A Lua script that runs `string.find`, `match`, `gmatch` and `gsub` over a corpus of subjects,
/// patterns and arguments, and returns one line per call describing its results or its error.
///
/// Run in two VMs (one with Lua's own functions, one with Moonblade's matcher), the outputs must be
/// equal. The corpus is the manual's pattern items one by one, the edge cases of anchors, captures
/// and malformed patterns, and 2,000 random patterns built from pattern items (seeded, so
/// both VMs see the same ones).
enum PatternCorpus {
    static let script = #"""
        local find, match, gmatch, gsub = string.find, string.match, string.gmatch, string.gsub
        local out = {}

        -- Printable ASCII only (without the functions under test), so the output survives as a C string.
        local function escape(text)
          local bytes = {}
          for i = 1, #text do
            local b = text:byte(i)
            bytes[i] = (b < 32 or b > 126 or b == 92) and ('\\' .. b .. ';') or string.char(b)
          end
          return table.concat(bytes)
        end

        local function show(...)
          local parts = {}
          for i = 1, select('#', ...) do
            local v = select(i, ...)
            parts[i] = type(v) .. ':' .. escape(tostring(v))
          end
          return table.concat(parts, ',')
        end

        local function try(f, ...)
          local r = table.pack(pcall(f, ...))
          if not r[1] then return 'error:' .. tostring(r[2]) end
          return show(table.unpack(r, 2, r.n))
        end

        local function iterate(s, p, init)
          local r = {}
          for a, b, c in gmatch(s, p, init) do
            r[#r + 1] = show(a, b, c)
            if #r > 40 then break end
          end
          return table.concat(r, ';')
        end

        local replacements = { x = 'X', a = false, ['1'] = 1, ab = 'AB' }
        local function replace(a, b) if a == 'b' then return nil end return (b or a) .. '!' end

        local function all(s, p, init)
          out[#out + 1] = '"' .. escape(s) .. '" "' .. escape(p) .. '" ' .. tostring(init)
          out[#out + 1] = 'find ' .. try(find, s, p, init)
          out[#out + 1] = 'plain ' .. try(find, s, p, init, true)
          out[#out + 1] = 'match ' .. try(match, s, p, init)
          out[#out + 1] = 'gmatch ' .. try(iterate, s, p, init)
          out[#out + 1] = 'gsub string ' .. try(gsub, s, p, '<%0|%1>')
          out[#out + 1] = 'gsub escapes ' .. try(gsub, s, p, '%%-%2')
          out[#out + 1] = 'gsub function ' .. try(gsub, s, p, replace)
          out[#out + 1] = 'gsub table ' .. try(gsub, s, p, replacements, 3)
          out[#out + 1] = 'gsub number ' .. try(gsub, s, p, 7, init)
        end

        local subjects = {
          '', 'a', 'hello world', '  key = value  ', 'f(a(b)c)d', 'THE (quick) fox', 'aaa', 'abcabc',
          'x = 10, y = -2.5e3', '[[nested]] [x]', 'a.b.c', '%d %%', 'caf\xc3\xa9 na\xc3\xafve', 'a\0b\0c',
          'one two  three', '$100 ^up^', 'aXbXc', '()()', '\n\t end',
        }
        local patterns = {
          '', 'a', '.', '%a+', '%d+', '%s*', '%w-', '%p', '%c', '%g+', '%l+', '%u', '%x+', '%A+', '%D',
          '%S+', '%W', '%.', '%%', '[abc]', '[^abc]+', '[a-c]+', '[%a_][%w_]*', '[]]', '[^]]', '[a-]', '[-a]',
          '[%]]', '^a', '^$', 'a$', '$', '^', 'a*', 'a+', 'a-', 'a?', 'a-b', '.-b', '.*', '.-', '(a)', '(a*(.)%w(%s*))',
          '()a()', '()', '(a)(b)%2%1', '(%a+)%s*=%s*(%w+)', '%b()', '%b[]', '%bxy', '%f[%a]%a+', '%f[%A]', '%f[%z]',
          '(h)(e)(l)(l)(o)', '^(%s*)(.-)(%s*)$', '(.)%1', '%0', '%1', '(()', '())', '(', ')', '%', '[a', '[^',
          '%f', '%fa', '%b', '%b(', 'a\0b', '[\0]', '\0', '%z', '[%d-]+', '%-', 'x*$', '^a*', '(a-)b', '%x%x?',
          '$^', 'a$b', '^^', '.$', '(%d+)[.,]?(%d*)', '[+-]?%d+%.?%d*[eE]?[+-]?%d*',
        }
        local inits = { false, 1, 2, -1, 0, 5, -100, 100 }

        for _, s in ipairs(subjects) do
          for _, p in ipairs(patterns) do
            all(s, p, nil)
          end
        end
        for _, s in ipairs({ 'hello world', 'aaa', '' }) do
          for _, p in ipairs({ 'o', 'l+', '', '^h', '()' }) do
            for _, init in ipairs(inits) do
              all(s, p, init or nil)
            end
          end
        end

        -- Random patterns from pattern items, on random subjects over a small alphabet.
        math.randomseed(20261124)
        local items = {
          'a', 'b', 'x', '.', '%a', '%d', '%s', '%w', '%p', '[ab]', '[^a]', '[a-c]', '[%d)]', '%b()',
          '%f[%w]', '%f[%s]', '(', ')', '()', '%1', '%2', '*', '+', '-', '?', '^', '$', '%%', '%(', ' ',
        }
        local alphabet = { 'a', 'b', 'x', '1', '2', '(', ')', ' ', '%', 'A' }
        for _ = 1, 2000 do
          local p, s = {}, {}
          for i = 1, math.random(1, 7) do p[i] = items[math.random(#items)] end
          for i = 1, math.random(0, 12) do s[i] = alphabet[math.random(#alphabet)] end
          all(table.concat(s), table.concat(p), nil)
        end

        -- Lua code run from a replacement function, and matches inside it.
        out[#out + 1] = try(gsub, 'abc def', '%w+', function(w) return (gsub(w, '.', '%0%0')) end)
        -- Errors from inside a replacement: a bad replacement value, and %n past the captures.
        out[#out + 1] = try(gsub, 'abc', '%w', function() return {} end)
        out[#out + 1] = try(gsub, 'abc', '(%w)', '%2')
        out[#out + 1] = try(gsub, 'abc', '%w', '%')
        out[#out + 1] = try(gsub, 'abc', '%w', '%x')
        out[#out + 1] = try(gsub, 'abc', '%w')
        out[#out + 1] = try(gsub, 'abc', '%w', true)
        out[#out + 1] = try(find, 'abc', ('(a)'):rep(33))
        out[#out + 1] = try(find, ('a'):rep(300), ('a?'):rep(300) .. ('a'):rep(300))
        out[#out + 1] = try(match, ('x'):rep(250), ('(x)'):rep(30))
        out[#out + 1] = try(find, ('a'):rep(60), ('.-'):rep(3) .. 'b')
        out[#out + 1] = try(match, 'key=1;k2=22', '()(%w+)=()(%d+)')
        out[#out + 1] = try(function() return ('abc'):find('b', 1, true) end)
        out[#out + 1] = try(function() return ('x'):rep(10):gsub('x', 'y', 4) end)
        out[#out + 1] = try(function() return ('x'):rep(10):gsub('x', 'y', -1) end)
        out[#out + 1] = try(function() return ('x'):rep(10):gsub('x', 'y', 2.0) end)
        out[#out + 1] = try(function() return ('x'):rep(10):gsub('x', 'y', 2.5) end)
        out[#out + 1] = try(find, 'abc', 'b', 1.5)
        out[#out + 1] = try(find, 123, 2)
        out[#out + 1] = try(find, nil, 'a')
        return table.concat(out, '\n')
        """#
}
