package io.sstableflight.trino;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that convert Arrow data get a fresh root allocator each, which must
 * hold no byte when the test ends: the conversion copies what it needs and
 * keeps no Arrow buffer, and whatever the test made it closed.
 */
abstract class CheckedAllocatorTest
{
    protected BufferAllocator allocator;

    @BeforeEach
    final void openAllocator()
    {
        allocator = new RootAllocator();
    }

    @AfterEach
    final void closeAllocator()
    {
        try {
            assertThat(allocator.getAllocatedMemory()).as("Arrow bytes still allocated").isZero();
        }
        finally {
            allocator.close();
        }
    }
}
