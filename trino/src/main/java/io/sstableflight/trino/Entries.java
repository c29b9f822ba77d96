package io.sstableflight.trino;

import io.trino.spi.block.Block;

import java.util.Optional;

/**
 * The offsets of a list or map column after dropping the entries Arrow keeps
 * under null values (a null vector<float, 3> still holds three floats), which
 * Trino's ArrayBlock and MapBlock refuse. Without such entries, the common
 * case, the offsets and the child block are used as they are.
 */
record Entries(int[] offsets, int[] kept)
{
    static Entries dropUnderNulls(int[] offsets, Optional<boolean[]> nulls, int childCount)
    {
        int n = offsets.length - 1;
        if (offsets[n] > childCount || offsets[0] < 0) {
            throw new IllegalStateException("list offsets %d..%d exceed the %d child values".formatted(offsets[0], offsets[n], childCount));
        }
        if (nulls.isEmpty()) {
            return new Entries(offsets, null);
        }
        boolean[] isNull = nulls.get();
        boolean needed = false;
        for (int i = 0; i < n && !needed; i++) {
            needed = isNull[i] && offsets[i + 1] != offsets[i];
        }
        if (!needed) {
            return new Entries(offsets, null);
        }
        int[] newOffsets = new int[n + 1];
        int[] kept = new int[offsets[n] - offsets[0]];
        int count = 0;
        for (int i = 0; i < n; i++) {
            if (!isNull[i]) {
                for (int p = offsets[i]; p < offsets[i + 1]; p++) {
                    kept[count++] = p;
                }
            }
            newOffsets[i + 1] = count;
        }
        return new Entries(newOffsets, java.util.Arrays.copyOf(kept, count));
    }

    /** The child block the offsets index. */
    Block select(Block child)
    {
        return kept == null ? child : child.copyPositions(kept, 0, kept.length);
    }
}
