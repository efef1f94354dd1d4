// The VM's small blocks, kept for reuse. Invariant: a kept block is handed out again only for a block
// of its own size class, and the pool keeps no more than its capacity.
//
// A Lua dispatch makes and drops a handful of small objects (tables, their parts, userdata), and the
// collector frees them in bursts. The C library's per-thread cache holds only a few blocks of each
// size, so most of those frees took its slow path, and malloc and free were a tenth of a small
// dispatch. Lua tells its allocator the size of every block it frees, so a free list per size class
// needs no header: blocks of up to 256 bytes are made in classes of 16 bytes and, once freed, kept
// (up to a cap) for the next block of their class. One VM's allocator runs on one thread at a time
// (the VM's rule), so the lists need no lock.

#include "../guest.h"
#include <stdlib.h>
#include <string.h>

enum { moonblade_largest_pooled = moonblade_pool_granule * moonblade_pool_classes };

/// How many bytes of freed blocks one VM keeps at most; past it, blocks go back to the C library.
/// None under AddressSanitizer, which could not see a block used after it was freed into a list.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MOONBLADE_ADDRESS_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(MOONBLADE_ADDRESS_SANITIZER)
static const size_t pool_capacity = 0;
#else
static const size_t pool_capacity = 256 * 1024;
#endif

static size_t class_of(size_t size) { return (size - 1) / moonblade_pool_granule; }
static size_t class_size(size_t class) { return (class + 1) * moonblade_pool_granule; }

/// A block for `size` bytes (at most `moonblade_largest_pooled`), of its class's full size so that any later
/// block of the class fits in it.
static void *take(moonblade_limits *limits, size_t size) {
    size_t class = class_of(size);
    void *block = limits->pool[class];
    if (block == NULL) return malloc(class_size(class));
    memcpy(&limits->pool[class], block, sizeof block);  // the next free block, stored in this one
    limits->pooled_bytes -= class_size(class);
    return block;
}

static void keep(moonblade_limits *limits, void *block, size_t size) {
    size_t class = class_of(size);
    if (limits->pooled_bytes + class_size(class) > pool_capacity) {
        free(block);
        return;
    }
    memcpy(block, &limits->pool[class], sizeof block);
    limits->pool[class] = block;
    limits->pooled_bytes += class_size(class);
}

void *moonblade_pool_resize(moonblade_limits *limits, void *block, size_t old_size, size_t new_size) {
    if (pool_capacity == 0) return realloc(block, new_size);  // exact sizes, for the sanitizer
    int new_small = new_size <= moonblade_largest_pooled;
    if (block == NULL) return new_small ? take(limits, new_size) : malloc(new_size);
    int old_small = old_size <= moonblade_largest_pooled;
    if (old_small && new_small && class_of(old_size) == class_of(new_size)) return block;
    if (!old_small && !new_small) return realloc(block, new_size);
    void *moved = new_small ? take(limits, new_size) : malloc(new_size);
    // Lua's manual: shrinking a block never fails. The old one is big enough.
    if (moved == NULL) return new_size < old_size ? block : NULL;
    memcpy(moved, block, old_size < new_size ? old_size : new_size);
    moonblade_pool_free(limits, block, old_size);
    return moved;
}

void moonblade_pool_free(moonblade_limits *limits, void *block, size_t size) {
    if (size <= moonblade_largest_pooled && pool_capacity > 0) keep(limits, block, size); else free(block);
}

void moonblade_drain_block_pool(moonblade_limits *limits) {
    for (int class = 0; class < moonblade_pool_classes; class++) {
        while (limits->pool[class] != NULL) {
            void *block = limits->pool[class];
            memcpy(&limits->pool[class], block, sizeof block);
            free(block);
        }
    }
    limits->pooled_bytes = 0;
}
