package io.github.verbs4j.fabric.netty;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.FabricMetrics;
import io.github.verbs4j.fabric.FrameHeader;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * Splits a byte stream into frames ({@link FrameHeader} + payload) and passes each well-formed one
 * on as a retained slice (header included, no copy). Never throws: a header that fails {@link
 * FrameHeader#check} is counted with its {@link DropReason} and its {@code 32 + length} bytes are
 * skipped (streamed, so a huge length is not buffered); bytes left when the connection closes are
 * counted as {@link DropReason#TRUNCATED}. Every byte that enters is either passed on or counted in
 * {@code verbs4j.fabric.dropped.bytes}.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
  private final int maxPayload;
  private final FabricMetrics metrics;
  private final IntSupplier localNode;
  private long discarding;
  private DropReason discardReason;

  /**
   * @param maxPayload largest payload accepted (the fabric MTU)
   * @param metrics where drops are counted
   * @param localNode this node's id, or 0 while unknown (any destination accepted)
   */
  public FrameDecoder(int maxPayload, FabricMetrics metrics, IntSupplier localNode) {
    this.maxPayload = maxPayload;
    this.metrics = metrics;
    this.localNode = localNode;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    while (true) {
      if (discarding > 0) {
        int n = (int) Math.min(discarding, in.readableBytes());
        in.skipBytes(n);
        discarding -= n;
        metrics.dropBytes(discardReason, n);
        if (discarding > 0) {
          return;
        }
        continue;
      }
      int readable = in.readableBytes();
      if (readable < FrameHeader.LENGTH) {
        return;
      }
      int r = in.readerIndex();
      long total = FrameHeader.LENGTH + FrameHeader.length(in, r);
      DropReason why = FrameHeader.check(in, r, maxPayload, localNode.getAsInt());
      if (why != null) {
        // One frame counted; its bytes are counted as they are skipped.
        metrics.drop(why, 0);
        discarding = total;
        discardReason = why;
        continue;
      }
      if (readable < total) {
        return;
      }
      out.add(in.readRetainedSlice((int) total));
    }
  }

  @Override
  protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    decode(ctx, in, out);
    int rest = in.readableBytes();
    if (rest > 0) {
      metrics.drop(DropReason.TRUNCATED, rest);
      in.skipBytes(rest);
    }
  }
}
