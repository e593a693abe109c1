package io.github.verbs4j.fabric;

import io.netty.buffer.ByteBuf;

/**
 * Receives the frames addressed to a node. Called on the node's fabric thread (the Netty event
 * loop, the local fabric's node thread, or the thread calling {@code runUntilIdle()} in the
 * deterministic mode), one frame at a time, in the order frames arrive.
 *
 * <p>Ownership: the receiver owns {@code payload} and must release it (or hand it on). The {@code
 * header} object is reused: it is valid only during the call; copy the fields you need. If the
 * receiver throws, the fabric logs the exception, counts it ({@link DropReason#RECEIVER_ERROR}) and
 * continues; the payload is then considered the receiver's.
 */
@FunctionalInterface
public interface FrameReceiver {
  /**
   * @param header the frame's header (reused, valid during the call only)
   * @param payload the payload, {@code header.length()} readable bytes; owned by the receiver
   */
  void onFrame(FrameHeader header, ByteBuf payload);
}
