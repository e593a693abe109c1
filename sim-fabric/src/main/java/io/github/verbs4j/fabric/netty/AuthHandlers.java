package io.github.verbs4j.fabric.netty;

import io.github.verbs4j.fabric.FabricMetrics;
import io.github.verbs4j.fabric.auth.Handshake;
import io.github.verbs4j.fabric.auth.JobSecret;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Handshake} on a netty data connection, first in its pipeline. The server side reads
 * nothing but the fixed-size HELLO and PROOF until the peer has proved the job secret; then it
 * installs the frame handlers for that peer and removes itself (bytes the peer sent after its
 * proof go on to them). A connection that fails, or does not finish in {@link #TIMEOUT_MS}, is
 * closed before any frame is read and counted ({@link FabricMetrics#rejected}). The client side
 * holds back {@code channelActive} until the server has proved the secret, so no frame is written
 * to a listener that is not of the job.
 */
final class AuthHandlers {
  private static final Logger LOG = LoggerFactory.getLogger(AuthHandlers.class);
  /** Time a new connection has to complete its handshake, ms. */
  static final long TIMEOUT_MS = 10_000;

  private AuthHandlers() {}

  /** Names the states of a handshake in progress. */
  private enum State {
    AWAIT_HELLO,
    AWAIT_PROOF,
    AWAIT_CHALLENGE,
    /** The peer proved the secret. */
    DONE,
    /** The connection was refused (and is closing). */
    REFUSED
  }

  /** The accepting side. */
  static final class Server extends ByteToMessageDecoder {
    private final Handshake handshake;
    private final int self;
    private final int maxNode;
    private final FabricMetrics metrics;
    private final IntConsumer onAuthenticated;
    private State state = State.AWAIT_HELLO;
    private ScheduledFuture<?> timeout;

    /**
     * @param secret the job secret
     * @param self this node's id
     * @param maxNode the largest node id of the job
     * @param metrics where rejections are counted
     * @param onAuthenticated installs the frame handlers for the proven peer (its node id), after
     *     this handler
     */
    Server(JobSecret secret, int self, int maxNode, FabricMetrics metrics, IntConsumer onAuthenticated) {
      this.handshake = Handshake.server(secret, Handshake.Kind.DATA);
      this.self = self;
      this.maxNode = maxNode;
      this.metrics = metrics;
      this.onAuthenticated = onAuthenticated;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      timeout = ctx.executor().schedule(() -> reject(ctx, new Handshake.AuthException(Handshake.Failure.TIMEOUT,
          "no handshake within " + TIMEOUT_MS + " ms")), TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
      try {
        if (state == State.AWAIT_HELLO && in.readableBytes() >= Handshake.HELLO_LENGTH) {
          byte[] hello = new byte[Handshake.HELLO_LENGTH];
          in.readBytes(hello);
          ctx.writeAndFlush(Unpooled.wrappedBuffer(handshake.challenge(hello, self, maxNode)));
          state = State.AWAIT_PROOF;
        }
        if (state == State.AWAIT_PROOF && in.readableBytes() >= Handshake.PROOF_LENGTH) {
          byte[] proof = new byte[Handshake.PROOF_LENGTH];
          in.readBytes(proof);
          handshake.verify(proof);
          state = State.DONE;
          timeout.cancel(false);
          onAuthenticated.accept(handshake.clientNode());
          ctx.pipeline().remove(this); // what follows the proof goes to the frame handlers
        }
      } catch (Handshake.AuthException e) {
        in.skipBytes(in.readableBytes());
        reject(ctx, e);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
      if (state != State.DONE) {
        reject(ctx, new Handshake.AuthException(Handshake.Failure.CLOSED, "closed during the handshake"));
      }
      super.channelInactive(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
      if (evt instanceof SslHandshakeCompletionEvent e && !e.isSuccess()) {
        reject(ctx, new Handshake.AuthException(Handshake.Failure.TLS, String.valueOf(e.cause())));
      }
      super.userEventTriggered(ctx, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (state != State.DONE) {
        // A TLS record that is not one (plain text to a TLS listener), a failed TLS handshake, or
        // a reset: refused (once), and nothing more to say about it.
        reject(ctx, new Handshake.AuthException(cause instanceof DecoderException ? Handshake.Failure.TLS
            : Handshake.Failure.CLOSED, String.valueOf(cause)));
        return;
      }
      ctx.fireExceptionCaught(cause);
    }

    private void reject(ChannelHandlerContext ctx, Handshake.AuthException e) {
      if (state == State.DONE || state == State.REFUSED) {
        return;
      }
      state = State.REFUSED;
      if (timeout != null) {
        timeout.cancel(false);
      }
      metrics.rejected(e.failure());
      LOG.warn("node {}: refused connection from {}: {} ({})", self, ctx.channel().remoteAddress(), e.failure().tag(),
          e.getMessage());
      ctx.close();
    }
  }

  /** The connecting side. */
  static final class Client extends ByteToMessageDecoder {
    private final Handshake handshake;
    private final ChannelPromise done;
    private final int peer;
    private State state = State.AWAIT_CHALLENGE;
    private ScheduledFuture<?> timeout;

    /**
     * @param secret the job secret
     * @param self this node's id
     * @param peer the node connected to
     * @param done completed when the peer has proved the secret, failed if it does not
     */
    Client(JobSecret secret, int self, int peer, ChannelPromise done) {
      this.handshake = Handshake.client(secret, Handshake.Kind.DATA, self, peer);
      this.peer = peer;
      this.done = done;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      // Held back from the handlers after this one until the server has proved the secret.
      ctx.writeAndFlush(Unpooled.wrappedBuffer(handshake.hello()));
      timeout = ctx.executor().schedule(() -> fail(ctx, new Handshake.AuthException(Handshake.Failure.TIMEOUT,
          "node " + peer + " did not answer the handshake within " + TIMEOUT_MS + " ms")), TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
      if (state != State.AWAIT_CHALLENGE || in.readableBytes() < Handshake.CHALLENGE_LENGTH) {
        return;
      }
      byte[] challenge = new byte[Handshake.CHALLENGE_LENGTH];
      in.readBytes(challenge);
      try {
        ctx.writeAndFlush(Unpooled.wrappedBuffer(handshake.answer(challenge)));
      } catch (Handshake.AuthException e) {
        in.skipBytes(in.readableBytes());
        fail(ctx, e);
        return;
      }
      state = State.DONE;
      timeout.cancel(false);
      ctx.fireChannelActive();
      ctx.pipeline().remove(this);
      done.trySuccess();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
      if (evt instanceof SslHandshakeCompletionEvent e && !e.isSuccess()) {
        fail(ctx, new Handshake.AuthException(Handshake.Failure.TLS, "node " + peer
            + " refused TLS or does not hold this job's key (verbs.fabric.tls=on): " + e.cause()));
      }
      super.userEventTriggered(ctx, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (state != State.DONE) {
        fail(ctx, new Handshake.AuthException(cause instanceof DecoderException ? Handshake.Failure.TLS
            : Handshake.Failure.CLOSED, "node " + peer + ": " + cause));
        return;
      }
      ctx.fireExceptionCaught(cause);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
      if (state != State.DONE) {
        fail(ctx, new Handshake.AuthException(Handshake.Failure.CLOSED, "node " + peer
            + " closed the connection during the handshake: it does not accept this process's job secret"));
      }
      super.channelInactive(ctx);
    }

    private void fail(ChannelHandlerContext ctx, Handshake.AuthException e) {
      if (state == State.DONE || state == State.REFUSED) {
        return;
      }
      state = State.REFUSED;
      if (timeout != null) {
        timeout.cancel(false);
      }
      done.tryFailure(e);
      ctx.close();
    }
  }
}
