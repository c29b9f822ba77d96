package io.sstableflight.trino;

import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.BlockBuilderStatus;
import io.trino.spi.block.Int128ArrayBlock;
import io.trino.spi.block.Int128ArrayBlockBuilder;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.type.AbstractType;
import io.trino.spi.type.FixedWidthType;
import io.trino.spi.type.StandardTypes;
import io.trino.spi.type.TypeSignature;

import static io.trino.spi.type.UuidType.UUID;

/**
 * A stand-in for Trino's IPADDRESS, which lives in the engine (trino-main),
 * not the SPI: the same name and the same block (Int128, the 16 address
 * bytes in order), enough for unit tests that map inet columns without a
 * Trino server. Its values are read as the bytes they are; the real type
 * is exercised by the integration suite.
 */
final class TestingIpAddressType
        extends AbstractType
        implements FixedWidthType
{
    static final TestingIpAddressType IPADDRESS = new TestingIpAddressType();

    private TestingIpAddressType()
    {
        super(new TypeSignature(StandardTypes.IPADDRESS), io.airlift.slice.Slice.class, Int128ArrayBlock.class);
    }

    @Override
    public int getFixedSize()
    {
        return 16;
    }

    @Override
    public int getFlatFixedSize()
    {
        return 16;
    }

    @Override
    public BlockBuilder createBlockBuilder(BlockBuilderStatus status, int expectedEntries)
    {
        return new Int128ArrayBlockBuilder(status, expectedEntries);
    }

    @Override
    public BlockBuilder createBlockBuilder(BlockBuilderStatus status, int expectedEntries, int expectedBytesPerEntry)
    {
        return createBlockBuilder(status, expectedEntries);
    }

    @Override
    public BlockBuilder createFixedSizeBlockBuilder(int positionCount)
    {
        return new Int128ArrayBlockBuilder(null, positionCount);
    }

    @Override
    public Object getObjectValue(ConnectorSession session, Block block, int position)
    {
        return block.isNull(position) ? null : getSlice(block, position);
    }

    @Override
    public io.airlift.slice.Slice getSlice(Block block, int position)
    {
        // The same Int128 layout as UUID: the slice is the 16 bytes in order.
        return UUID.getSlice(block, position);
    }

    @Override
    public void appendTo(Block block, int position, BlockBuilder blockBuilder)
    {
        UUID.appendTo(block, position, blockBuilder);
    }
}
