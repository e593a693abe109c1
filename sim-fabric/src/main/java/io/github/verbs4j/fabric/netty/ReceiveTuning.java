package io.github.verbs4j.fabric.netty;

import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.unix.DomainSocketChannel;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * How the netty fabric reads frames of up to 1 MiB without Netty's defaults hurting large frames
 * (and sizes its Unix socket buffers, {@link #socketBuffers}):
 * a 64 KiB read ceiling, and a merge cumulator that grows the cumulation by doubling and copies
 * what it holds each time (a 1 MiB frame cost ~1 ms one-way). Public so the raw-Netty benchmark
 * baseline applies exactly the same settings ({@code docs/benchmarks.md}); not a provider API.
 *
 * <ul>
 *   <li>reads may grow to {@link #MAX_READ} (an {@link AdaptiveRecvByteBufAllocator}: it still
 *       shrinks to small reads when frames are small) when frames can exceed 64 KiB;
 *   <li>{@link ByteToMessageDecoder#COMPOSITE_CUMULATOR}: a frame that spans reads is assembled
 *       from the read buffers without copying. A frame that arrives in one read is passed on as a
 *       slice of that read buffer, as before; one that spanned reads reaches the receiver as a
 *       slice of a composite buffer.
 * </ul>
 *
 * Measured in {@code docs/benchmarks.md} against a sized-copy cumulator (allocate the frame's
 * size once, copy each byte once) and the merge cumulator with large reads: composite was the
 * fastest for 1 MiB frames and no slower at 64 KiB.
 */
public final class ReceiveTuning {
  /**
   * Largest read buffer (the adaptive allocator reads at most the largest of its sizes, powers of
   * two from 1 KiB, that fits: 512 KiB). Not 1 MiB: Netty's pooled allocator destroys an emptied
   * 4 MiB chunk that held a buffer of 1 MiB or more, and re-creating it cost 90-130 µs per read on
   * this VM; the raw-Netty stream moved 1 MiB messages at 5.6-5.8 GB/s with 512 KiB reads against
   * 3.7-4.7 GB/s with 1 MiB reads ({@code docs/benchmarks.md}).
   */
  public static final int MAX_READ = (512 << 10) + 64;

  private ReceiveTuning() {}

  /**
   * Sets the socket buffers of a Unix domain socket connection (other channels are left alone, so
   * TCP keeps the kernel's autotuning, which an explicit size turns off). The default Unix socket
   * buffer (net.core.wmem_default, 208 KiB on most kernels) holds a fifth of a 1 MiB frame: every
   * write and read of a stream moves at most that much, and on a VM whose system calls are
   * expensive a larger buffer halves the calls per byte ({@code docs/benchmarks.md}).
   *
   * @param ch the channel, before or after it connected
   * @param bytes SO_SNDBUF and SO_RCVBUF; 0 keeps the kernel's default
   */
  public static void socketBuffers(Channel ch, int bytes) {
    if (bytes > 0 && ch instanceof DomainSocketChannel) {
      ch.config().setOption(ChannelOption.SO_SNDBUF, bytes);
      ch.config().setOption(ChannelOption.SO_RCVBUF, bytes);
    }
  }

  /**
   * Applies the tuning to a channel and its frame decoder.
   *
   * @param ch the channel
   * @param decoder its frame decoder
   * @param maxFrame the largest frame on it (header included)
   */
  public static void apply(Channel ch, ByteToMessageDecoder decoder, int maxFrame) {
    int max = maxFrame > 65536 ? MAX_READ : 65536;
    ch.config().setRecvByteBufAllocator(new AdaptiveRecvByteBufAllocator(64, 2048, max));
    decoder.setCumulator(ByteToMessageDecoder.COMPOSITE_CUMULATOR);
  }
}
