package io.github.verbs4j.fabric.netty;

import io.github.verbs4j.fabric.DropReason;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's outgoing connection to one peer: counts the bytes written ({@link Peer#written}), binds
 * the connection's meters, passes back-pressure on to the node and closes on errors. Outgoing
 * connections carry no inbound frames: anything that arrives is counted and dropped.
 */
final class OutboundHandler extends ChannelDuplexHandler {
  private static final Logger LOG = LoggerFactory.getLogger(OutboundHandler.class);

  private final NettyNode node;
  private final int peer;
  private Peer counted;

  OutboundHandler(NettyNode node, int peer) {
    this.node = node;
    this.peer = peer;
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    Peer p = counted;
    if (p != null && msg instanceof ByteBuf b) {
      p.written += b.readableBytes(); // event loop only
    }
    ctx.write(msg, promise);
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    Peer p = node.peer(peer);
    node.metrics().bindPeer(peer, ctx.channel(), c -> {
      ChannelOutboundBuffer b = c.unsafe().outboundBuffer();
      return b == null ? 0 : b.totalPendingWriteBytes();
    });
    ctx.fireChannelActive();
    if (p != null) {
      counted = p;
      p.channel = ctx.channel();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    boolean w = ctx.channel().isWritable();
    Peer p = node.peer(peer);
    if (p != null && p.lastWritable != w) {
      p.lastWritable = w;
      node.connectionWritability(peer, w);
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf b = (ByteBuf) msg;
    node.metrics().drop(DropReason.MISROUTED, b.readableBytes());
    b.release();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.debug("node {}: connection to peer {} failed: {}", node.nodeId(), peer, cause.toString());
    ctx.close();
  }
}
