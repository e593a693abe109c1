package io.github.verbs4j.fabric.shm;

import io.github.verbs4j.fabric.FabricException;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import org.agrona.BitUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

/**
 * One node's inbound ring: an Agrona {@link ManyToOneRingBuffer} over a memory-mapped file that
 * every sender on the host maps (as Aeron IPC does), followed by a doorbell word that the
 * receiver's poller sets while it sleeps. The file is created mode 0600 inside the
 * user's 0700 private directory, so only the job's user can map it. Mappings are never unmapped
 * explicitly: a sender thread may still be writing when a peer goes down or the node closes, and an
 * explicit unmap under it would crash the JVM; the mapping goes when its buffer is collected.
 */
final class ShmRing {
  /** Smallest ring: 64 KiB of data. */
  static final int MIN_CAPACITY = 1 << 16;
  /** Largest ring: 16 MiB of data (frames up to 2 MiB). */
  static final int MAX_CAPACITY = 1 << 24;

  /** Bytes after the ring's trailer: the receiver's doorbell word, on a cache line of its own. */
  static final int BELL_LENGTH = 128;
  /**
   * Offset in the bell of a long: {@link System#nanoTime()} when the receiver's engine last had
   * taken every frame that reached it (its own cache line: senders read it only on a timeout).
   */
  static final int CAUGHT_UP = 0;
  /** Offset in the bell of a long: frames the receiver has taken out of its ring (only grows). */
  static final int TAKEN = 8;
  /**
   * Offset in the bell of a long: {@link #TAKEN} as it was when the receiver's engine last had
   * taken everything that reached it. Equal to {@code TAKEN} with the ring empty: caught up now.
   */
  static final int CAUGHT_UP_TAKEN = 16;
  /** The doorbell word's offset in the bell: 1 while the receiver's poller sleeps. */
  static final int SLEEPING = 64;

  /** A mapped ring and its doorbell. */
  record Mapped(ManyToOneRingBuffer ring, UnsafeBuffer bell) {}

  private ShmRing() {}

  private static Mapped wrap(MappedByteBuffer m, long ringBytes) {
    UnsafeBuffer all = new UnsafeBuffer(m);
    return new Mapped(new ManyToOneRingBuffer(new UnsafeBuffer(all, 0, (int) ringBytes)),
        new UnsafeBuffer(all, (int) ringBytes, BELL_LENGTH));
  }

  /**
   * @param mtu the fabric's largest payload
   * @return the data capacity that holds a whole frame of that size (Agrona's ring takes messages up
   *     to an eighth of its capacity), within {@link #MIN_CAPACITY}..{@link #MAX_CAPACITY}
   */
  static int capacityFor(int mtu) {
    long want = 8L * (io.github.verbs4j.fabric.FrameHeader.LENGTH + (long) mtu + 8);
    if (want >= MAX_CAPACITY) {
      return MAX_CAPACITY;
    }
    return Math.max(MIN_CAPACITY, BitUtil.findNextPositivePowerOfTwo((int) want));
  }

  /**
   * Creates a ring file (mode 0600) and maps it.
   *
   * @param file a new file in the private directory
   * @param capacity data bytes, a power of two
   * @return the ring
   */
  static Mapped create(Path file, int capacity) {
    try (FileChannel ch = FileChannel.open(file, EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
        StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
      long ringBytes = capacity + RingBufferDescriptor.TRAILER_LENGTH;
      return wrap(ch.map(FileChannel.MapMode.READ_WRITE, 0, ringBytes + BELL_LENGTH), ringBytes);
    } catch (IOException e) {
      throw new FabricException("cannot create shared-memory ring " + file + ": " + e, e);
    }
  }

  /**
   * Maps a peer's ring.
   *
   * @param file its file
   * @return the ring, or null if the file is not a ring of this user's (missing, wrong size, a link)
   */
  static Mapped map(Path file) {
    try {
      if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
        return null;
      }
      try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        long size = ch.size();
        long cap = size - RingBufferDescriptor.TRAILER_LENGTH - BELL_LENGTH;
        if (cap < MIN_CAPACITY || cap > MAX_CAPACITY || !BitUtil.isPowerOfTwo(cap)) {
          return null;
        }
        return wrap(ch.map(FileChannel.MapMode.READ_WRITE, 0, size), cap + RingBufferDescriptor.TRAILER_LENGTH);
      }
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
