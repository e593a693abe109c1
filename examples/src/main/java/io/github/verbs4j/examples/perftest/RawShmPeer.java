package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.fabric.auth.PrivateDir;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.concurrent.ThreadLocalRandom;
import org.agrona.BitUtil;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * The raw shared-memory baseline of {@link Compare}: the same payloads between the same two
 * processes through memory-mapped files, written as a tuned user would without verbs4j. Each side
 * creates its inbound ring, an Agrona {@link OneToOneRingBuffer} over an {@link UnsafeBuffer} of a
 * {@link java.nio.MappedByteBuffer} of a file in the user's private directory ({@code
 * /dev/shm/verbs4j-<user>}), and maps the other side's. A message is copied into the ring by the
 * sender and out of it into the receiver's own buffer (two copies, as a verbs write MR → MR); waits
 * spin, then yield ({@link LoopIdle#latency()}): on two cores a pure spinner can starve its peer.
 *
 * <p>The ring file is named like a fabric node's ({@code n-<pid>-<rank>-<random>.ring}), so a file
 * left by a killed process is removed by {@link PrivateDir#cleanStale} and reported by the build's
 * leftover check; {@link #close()} deletes it.
 *
 * <p>Rank 1 {@link #serve()}s between the barriers of one measurement (echoes pings, counts streamed
 * messages) until rank 0, which measures, sends {@link #stop()}. Not thread-safe: one thread per side.
 */
final class RawShmPeer implements AutoCloseable {
  private static final int PING = 1;
  private static final int PONG = 2;
  private static final int DATA = 3;
  private static final int END_STREAM = 4;
  private static final int COUNT = 5;
  private static final int STOP = 6;

  private final Path file;
  private final OneToOneRingBuffer in;
  private final UnsafeBuffer src;
  private final UnsafeBuffer dst;
  /** The serving side's answer to an end of stream: {count, out of sequence}. */
  private final UnsafeBuffer reply = new UnsafeBuffer(ByteBuffer.allocateDirect(2 * Long.BYTES));
  private final int maxSize;
  private final Receiver receiver = new Receiver();
  private OneToOneRingBuffer out;
  private boolean closed;

  /**
   * Creates and maps this side's inbound ring.
   *
   * @param dir the private directory ({@link PrivateDir#of})
   * @param rank this process's rank (in the file name)
   * @param maxSize the largest message, at most 8 MiB
   */
  RawShmPeer(Path dir, int rank, int maxSize) {
    if (maxSize < 1 || maxSize > PerftestOptions.MAX_SIZE) {
      throw new IllegalArgumentException("maxSize=" + maxSize + " must be between 1 and " + PerftestOptions.MAX_SIZE);
    }
    this.maxSize = maxSize;
    this.file = dir.resolve("n-" + ProcessHandle.current().pid() + "-" + rank + "-"
        + Integer.toHexString(ThreadLocalRandom.current().nextInt()) + ".ring");
    this.in = new OneToOneRingBuffer(map(file, true, capacityFor(maxSize)));
    this.src = new UnsafeBuffer(ByteBuffer.allocateDirect(maxSize));
    // also holds the receiver's 16-byte count reply when every message is smaller
    this.dst = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(maxSize, 2 * Long.BYTES)));
  }

  /**
   * @param maxSize the largest message
   * @return ring data bytes: a power of two of at least 8 × {@code maxSize} (Agrona takes messages
   *     up to an eighth of the capacity), and at least 64 KiB
   */
  static int capacityFor(int maxSize) {
    return Math.max(1 << 16, BitUtil.findNextPositivePowerOfTwo(8 * maxSize));
  }

  private static UnsafeBuffer map(Path file, boolean create, int capacity) {
    try (FileChannel ch = create
        ? FileChannel.open(file, EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
            StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))
        : FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      long length = create ? capacity + RingBufferDescriptor.TRAILER_LENGTH : ch.size();
      return new UnsafeBuffer(ch.map(FileChannel.MapMode.READ_WRITE, 0, length));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot " + (create ? "create" : "map") + " shared-memory ring " + file + ": " + e, e);
    }
  }

  /** @return this side's ring file, to publish to the other side */
  String address() {
    return file.toString();
  }

  /** @return this side's ring file */
  Path file() {
    return file;
  }

  /**
   * Maps the other side's ring, where this side writes.
   *
   * @param address what the other side's {@link #address()} returned
   */
  void connect(String address) {
    Path p = Path.of(address);
    if (!Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
      throw new IllegalStateException("shared-memory ring " + p + " is not a regular file");
    }
    out = new OneToOneRingBuffer(map(p, false, 0));
  }

  /** @return {@code shm/agrona} */
  String describe() {
    return "shm/agrona";
  }

  private void send(int type, UnsafeBuffer from, int length, IdleStrategy idle) {
    while (!out.write(type, from, 0, length)) {
      idle.idle();
    }
    idle.reset();
  }

  /** Waits for the next message; returns its type (its bytes are in {@link #dst}). */
  private int receive(IdleStrategy idle) {
    receiver.type = 0;
    while (in.read(receiver, 1) == 0) {
      idle.idle();
    }
    idle.reset();
    return receiver.type;
  }

  /**
   * Ping-pong: {@code iters} round trips of {@code size} bytes; the last echo is checked byte for byte.
   *
   * @return the send time of every ping (perftest's tposted)
   */
  long[] pingPong(int size, int iters) {
    checkSize(size);
    long[] stamps = new long[iters];
    fill(size, iters);
    IdleStrategy idle = LoopIdle.latency();
    for (int i = 0; i < iters; i++) {
      stamps[i] = System.nanoTime();
      send(PING, src, size, idle);
      int t = receive(idle);
      if (t != PONG || receiver.length != size) {
        throw new IllegalStateException("raw shm ping " + i + ": got type " + t + " of " + receiver.length
            + " bytes, expected a pong of " + size);
      }
    }
    if (!sameBytes(dst, src, size)) {
      throw new IllegalStateException("raw shm ping-pong: the last echo of " + size + " bytes differs from the ping");
    }
    return stamps;
  }

  /**
   * Streams {@code iters} messages of {@code size} bytes, each written as soon as the ring has room;
   * messages of 8 bytes or more carry their sequence number, which the receiver checks.
   *
   * @return {tposted of every message..., time the receiver's count arrived}
   */
  long[] stream(int size, int iters) {
    checkSize(size);
    fill(size, 0);
    long[] out = new long[iters + 1];
    IdleStrategy idle = LoopIdle.latency();
    OneToOneRingBuffer ring = this.out;
    for (int i = 0; i < iters; i++) {
      int index;
      while ((index = ring.tryClaim(DATA, size)) < 0) {
        idle.idle();
      }
      idle.reset();
      out[i] = System.nanoTime();
      ring.buffer().putBytes(index, src, 0, size);
      if (size >= Long.BYTES) {
        ring.buffer().putLong(index, i);
      }
      ring.commit(index);
    }
    send(END_STREAM, src, 0, idle);
    int t = receive(idle);
    out[iters] = System.nanoTime();
    if (t != COUNT) {
      throw new IllegalStateException("raw shm stream: got type " + t + ", expected the receiver's count");
    }
    long count = dst.getLong(0);
    long outOfOrder = dst.getLong(Long.BYTES);
    if (count != iters || outOfOrder != 0) {
      throw new IllegalStateException("raw shm receiver counted " + count + " messages (" + outOfOrder
          + " out of sequence), " + iters + " were sent");
    }
    return out;
  }

  /**
   * @param n bytes
   * @return the first {@code n} bytes of the last message this side received (for tests)
   */
  byte[] lastReceived(int n) {
    byte[] b = new byte[n];
    dst.getBytes(0, b);
    return b;
  }

  /**
   * @param size a message size
   * @param sequence a stream message's sequence number, or -1 for a ping
   * @return the bytes this side sends as that message (for tests)
   */
  byte[] payload(int size, long sequence) {
    byte[] b = new byte[size];
    src.getBytes(0, b);
    if (sequence >= 0 && size >= Long.BYTES) {
      new UnsafeBuffer(b).putLong(0, sequence);
    }
    return b;
  }

  /** Ends the other side's {@link #serve()}. */
  void stop() {
    send(STOP, src, 0, LoopIdle.latency());
  }

  /**
   * Serves until {@link #stop()}: echoes pings, counts streamed messages (and checks their sequence
   * numbers), answers an end of stream with {count, out of sequence}.
   */
  void serve() {
    IdleStrategy idle = LoopIdle.latency();
    while (true) {
      int n = in.read(receiver);
      if (n == 0) {
        idle.idle();
        continue;
      }
      idle.reset();
      if (receiver.stop) {
        receiver.stop = false;
        return;
      }
    }
  }

  private void checkSize(int size) {
    if (size < 0 || size > maxSize) {
      throw new IllegalArgumentException("size=" + size + " exceeds the ring's largest message " + maxSize);
    }
    if (out == null) {
      throw new IllegalStateException("connect() first");
    }
  }

  static boolean sameBytes(UnsafeBuffer a, UnsafeBuffer b, int n) {
    int i = 0;
    for (; i + Long.BYTES <= n; i += Long.BYTES) {
      if (a.getLong(i) != b.getLong(i)) {
        return false;
      }
    }
    for (; i < n; i++) {
      if (a.getByte(i) != b.getByte(i)) {
        return false;
      }
    }
    return true;
  }

  /** A payload that differs per size and call, so a stale buffer cannot pass the echo check. */
  private void fill(int size, int salt) {
    for (int i = 0; i < size; i++) {
      src.putByte(i, (byte) (i * 31 + size + salt));
    }
  }

  /** Deletes the ring file (the mappings go with their buffers). Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete shared-memory ring " + file + ": " + e, e);
    }
  }

  /** Copies each message out into {@link #dst}; on the serving side also answers it. */
  private final class Receiver implements MessageHandler {
    private final IdleStrategy full = LoopIdle.latency();
    int type;
    int length;
    boolean stop;
    long count;
    long outOfOrder;

    @Override
    public void onMessage(int msgTypeId, MutableDirectBuffer buffer, int index, int len) {
      type = msgTypeId;
      length = len;
      switch (msgTypeId) {
        case DATA -> {
          if (len >= Long.BYTES && buffer.getLong(index) != count) {
            outOfOrder++;
          }
          count++;
          dst.putBytes(0, buffer, index, len);
        }
        case PING -> {
          dst.putBytes(0, buffer, index, len);
          send(PONG, dst, len, full);
        }
        case END_STREAM -> {
          reply.putLong(0, count);
          reply.putLong(Long.BYTES, outOfOrder);
          count = 0;
          outOfOrder = 0;
          send(COUNT, reply, 2 * Long.BYTES, full);
        }
        case STOP -> stop = true;
        default -> dst.putBytes(0, buffer, index, len);
      }
    }
  }
}
