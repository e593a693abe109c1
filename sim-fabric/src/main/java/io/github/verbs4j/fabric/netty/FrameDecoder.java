package io.github.verbs4j.fabric.netty;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.FabricMetrics;
import io.github.verbs4j.fabric.FrameHeader;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * Splits a byte stream into frames ({@link FrameHeader} + payload) and passes each well-formed one
 * on as a retained slice (header included, no copy). Never throws: a header that fails {@link
 * FrameHeader#check} is counted with its {@link DropReason} and its {@code 32 + length} bytes are
 * skipped (streamed, so a huge length is not buffered); bytes left when the connection closes are
 * counted as {@link DropReason#TRUNCATED}. Every byte that enters is either passed on or counted in
 * {@code verbs4j.fabric.dropped.bytes}.
 *
 * <p>A connection's share of its event loop is bounded in frames: after {@code framesPerTurn}
 * frames (passed on or dropped) in one turn it decodes the rest of what it holds on the loop's next
 * turn, after the other connections' reads (a zero-delay timer: due timers run after I/O in both
 * loops the fabric uses). Decoding and checking cost per frame, so a peer that sends 100,000 small
 * or malformed frames gets the loop for that many frames at a time, not for its whole backlog, while
 * a 1 MiB frame is one frame. The socket is still read meanwhile (a copy, cheap) until more than
 * {@link #HOLD_LIMIT} bytes are held; then reading stops until they are decoded, and the kernel's
 * socket buffer and TCP flow control hold the sender back.
 *
 * <p>Frames that fail their checks on arrival, here or in the node ({@link #rejected}), are paid
 * from the connection's {@link RejectBudget}: once it is spent the connection is neither read nor
 * decoded until the budget is partly back, so a member writing garbage gets a bounded share of the
 * loop and is held back by TCP flow control, and its frames are still all counted.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
  /** Frames a connection's decoder passes on or drops per turn of the event loop ({@code docs/benchmarks.md}). */
  public static final int FRAMES_PER_TURN = 64;
  /** Bytes a connection holds undecoded before it stops reading its socket. */
  static final int HOLD_LIMIT = 1 << 20;

  private final int maxPayload;
  private final FabricMetrics metrics;
  private final IntSupplier localNode;
  private final int framesPerTurn;
  private long discarding;
  private DropReason discardReason;
  /** Frames passed on or dropped this turn. */
  private int turnFrames;
  private Turn turn = Turn.READING;
  private ChannelHandlerContext context;
  private RejectBudget budget;
  /** A frame was rejected with the budget spent: stop at the next frame. */
  private boolean overBudget;
  /** Bytes taken off the stream: frames passed on and bytes skipped. */
  private long consumed;

  /** Where this decoder is in its turn. */
  private enum Turn {
    /** Decoding what arrives, budget left (auto-read on). */
    READING,
    /** The budget is spent: the rest is decoded on the next turn; the socket is still read. */
    DEFERRED,
    /** The budget is spent and more than {@link #HOLD_LIMIT} bytes are held: auto-read off. */
    PAUSED,
    /**
     * Too many frames failed their checks ({@link RejectBudget}): auto-read off and nothing
     * decoded until a timer finds the budget back.
     */
    POLICED,
    /** The connection is closing: everything left is decoded at once. */
    CLOSING
  }

  /**
   * A decoder without a per-turn budget (tests, tools).
   *
   * @param maxPayload largest payload accepted (the fabric MTU)
   * @param metrics where drops are counted
   * @param localNode this node's id, or 0 while unknown (any destination accepted)
   */
  public FrameDecoder(int maxPayload, FabricMetrics metrics, IntSupplier localNode) {
    this(maxPayload, metrics, localNode, Integer.MAX_VALUE);
  }

  /**
   * @param maxPayload largest payload accepted (the fabric MTU)
   * @param metrics where drops are counted
   * @param localNode this node's id, or 0 while unknown (any destination accepted)
   * @param framesPerTurn frames passed on or dropped per turn of the event loop, at least 1
   */
  public FrameDecoder(int maxPayload, FabricMetrics metrics, IntSupplier localNode, int framesPerTurn) {
    if (framesPerTurn < 1) {
      throw new IllegalArgumentException("framesPerTurn=" + framesPerTurn + " must be at least 1");
    }
    this.maxPayload = maxPayload;
    this.metrics = metrics;
    this.localNode = localNode;
    this.framesPerTurn = framesPerTurn;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    context = ctx;
    budget = new RejectBudget(ctx.executor().ticker().nanoTime());
  }

  /**
   * The node rejected a frame this decoder handed on (it failed the receiver's checks on arrival,
   * or named a source the connection may not speak for): it is paid from the connection's budget.
   * Event loop.
   */
  public void rejected() {
    long now = context.executor().ticker().nanoTime();
    budget.reject(now);
    if (budget.spent(now)) {
      overBudget = true;
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
    switch (turn) {
      case READING -> {
        turnFrames = 0; // the socket's turn is over with budget left: the next turn starts afresh
        super.channelReadComplete(ctx);
      }
      case PAUSED, POLICED -> {
        // not Netty's: with auto-read off it would ask for another read when this one passed nothing on
        discardSomeReadBytes();
        ctx.fireChannelReadComplete();
      }
      default -> super.channelReadComplete(ctx);
    }
  }

  /**
   * The budget is spent with {@code held} bytes left: decode them on the next turn, and keep reading
   * the socket meanwhile while they fit {@link #HOLD_LIMIT}.
   */
  private void defer(ChannelHandlerContext ctx, int held) {
    if (turn == Turn.READING) {
      turn = Turn.DEFERRED;
      ctx.executor().schedule(this::nextTurn, 0, TimeUnit.NANOSECONDS);
    }
    if (turn == Turn.DEFERRED && held > HOLD_LIMIT) {
      turn = Turn.PAUSED;
      ctx.channel().config().setAutoRead(false);
    }
  }

  /** Spent: stop reading and decoding until the budget is back. */
  private void police(ChannelHandlerContext ctx) {
    turn = Turn.POLICED;
    ctx.channel().config().setAutoRead(false);
    ctx.executor().schedule(this::endPolicing, budget.nanosToResume(ctx.executor().ticker().nanoTime()),
        TimeUnit.NANOSECONDS);
  }

  /** The policing timer: decode and read again once the budget is back. */
  private void endPolicing() {
    ChannelHandlerContext ctx = context;
    if (turn != Turn.POLICED || ctx.isRemoved()) {
      return;
    }
    long wait = budget.nanosToResume(ctx.executor().ticker().nanoTime());
    if (wait > 0) {
      ctx.executor().schedule(this::endPolicing, wait, TimeUnit.NANOSECONDS);
      return;
    }
    overBudget = false;
    turn = Turn.PAUSED;
    nextTurn();
  }

  /** The loop's next turn: decode a budget of what is held; read the socket again if it had stopped. */
  private void nextTurn() {
    ChannelHandlerContext ctx = context;
    if ((turn != Turn.DEFERRED && turn != Turn.PAUSED) || ctx == null || ctx.isRemoved()) {
      return;
    }
    boolean paused = turn == Turn.PAUSED;
    turn = Turn.READING;
    turnFrames = 0;
    try {
      channelRead(ctx, Unpooled.EMPTY_BUFFER); // decodes the held bytes, up to the budget
    } catch (Exception e) {
      ctx.fireExceptionCaught(e);
      return;
    }
    if (turn == Turn.READING) {
      turnFrames = 0;
      if (paused) {
        ctx.channel().config().setAutoRead(true); // all held bytes decoded: read the socket again
      }
    } else if (paused && turn == Turn.DEFERRED) {
      ctx.channel().config().setAutoRead(true); // fewer than HOLD_LIMIT bytes held: read again
    }
  }

  /** @return bytes of the stream decoded so far: frames passed on, and bytes of bad frames skipped (event loop) */
  public long consumed() {
    return consumed;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    while (true) {
      if (turn == Turn.POLICED) {
        return; // a read that was on its way when the socket was turned off
      }
      if (overBudget && turn != Turn.CLOSING) {
        police(ctx);
        return;
      }
      if (turnFrames >= framesPerTurn && turn != Turn.CLOSING) {
        defer(ctx, in.readableBytes());
        return;
      }
      if (discarding > 0) {
        int n = (int) Math.min(discarding, in.readableBytes());
        in.skipBytes(n);
        consumed += n;
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
        rejected();
        turnFrames++;
        discarding = total;
        discardReason = why;
        continue;
      }
      if (readable < total) {
        return;
      }
      out.add(in.readRetainedSlice((int) total));
      consumed += total;
      turnFrames++;
      return; // handed on before the next is decoded: the node may reject it ({@link #rejected})
    }
  }

  @Override
  protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    turn = Turn.CLOSING;
    int before;
    do {
      before = in.readableBytes();
      decode(ctx, in, out);
    } while (in.readableBytes() < before);
    int rest = in.readableBytes();
    if (rest > 0) {
      metrics.drop(DropReason.TRUNCATED, rest);
      in.skipBytes(rest);
    }
  }
}
