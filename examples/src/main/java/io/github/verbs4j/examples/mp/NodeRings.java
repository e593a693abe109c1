package io.github.verbs4j.examples.mp;

import io.github.verbs4j.examples.common.JobChannel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * {@link MpConfig.Strategy#SHARED}: the eager rings of a node, shared by its processes (seed 003
 * §3.4: 1,024 rings per node for the sources on RC and DC RDMA, not per process). The node's first
 * rank creates one file of {@code rings} rings in shared memory ({@code /dev/shm} where it exists)
 * and publishes its path; every rank of the node maps it, and a rank that gives a source a ring takes
 * the next free one with an atomic add on the file's header, so the node's ranks together hold at
 * most that many. The node's RC links are counted the same way (at most {@link
 * MpConfig.Hybrid#rcLinks()} per node). Once every rank of the node has mapped the file the first
 * rank removes its name, so nothing is left behind however the processes end.
 *
 * <p>Rings are taken, never given back: as with the hybrid's own rings, a source keeps its ring
 * until the communicator closes.
 */
final class NodeRings implements AutoCloseable {
  /** The header: rings taken (int at 0), RC links held (int at 4); rings start after it. */
  static final int HEADER = 64;
  private static final int RINGS_TAKEN = 0;
  private static final int RC_HELD = 4;
  private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
  /** A node file's name. */
  private static final Pattern NAME = Pattern.compile("verbs4j-mp-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}\\.rings");

  private final int node;
  private final int leader;
  private final int rings;
  private final long ringBytes;
  private final int rcCap;
  private final Path path;
  private final MappedByteBuffer mapped;
  private final UnsafeBuffer header;
  private boolean closed;

  private NodeRings(int node, int leader, int rings, long ringBytes, int rcCap, Path path, MappedByteBuffer mapped) {
    this.node = node;
    this.leader = leader;
    this.rings = rings;
    this.ringBytes = ringBytes;
    this.rcCap = rcCap;
    this.path = path;
    this.mapped = mapped;
    this.header = new UnsafeBuffer(mapped, 0, HEADER);
  }

  /**
   * @param rank a rank
   * @param ppn ranks per node
   * @return the first rank of {@code rank}'s node
   */
  static int leaderOf(int rank, int ppn) {
    return rank / ppn * ppn;
  }

  /**
   * @param rings rings in a node's file
   * @param ringBytes bytes of one ring
   * @return the file's length
   */
  static long fileBytes(int rings, long ringBytes) {
    return HEADER + rings * ringBytes;
  }

  /**
   * The node's first rank: creates and maps the node's file and publishes its path under {@code
   * node-rings}. The other ranks call {@link #join} after a barrier.
   *
   * @throws UncheckedIOException naming the file if it cannot be made
   */
  static NodeRings create(JobChannel kvs, int rank, int ppn, int rings, long ringBytes, int rcCap) {
    long length = fileBytes(rings, ringBytes);
    if (length > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("a node's " + rings + " rings of " + ringBytes + " bytes need " + length
          + " bytes, more than one mapping holds (2 GiB): fewer slots or a smaller eager limit");
    }
    Path path = directory().resolve("verbs4j-mp-" + UUID.randomUUID() + ".rings");
    try {
      Files.createFile(path, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
    } catch (FileAlreadyExistsException e) {
      throw new UncheckedIOException("node rings: " + path + " exists already", e);
    } catch (IOException | UnsupportedOperationException e) {
      throw new UncheckedIOException("node rings: cannot create " + path, e instanceof IOException io ? io
          : new IOException(e));
    }
    try {
      MappedByteBuffer m = map(path, length, true);
      kvs.publish("node-rings", path.toString());
      return new NodeRings(rank / ppn, rank, rings, ringBytes, rcCap, path, m);
    } catch (RuntimeException e) {
      deleteQuietly(path);
      throw e;
    }
  }

  /**
   * Another rank of the node: maps the file its first rank published.
   *
   * @throws UncheckedIOException naming the file if it cannot be mapped (the ranks of a node must
   *     share a host)
   */
  static NodeRings join(JobChannel kvs, int rank, int ppn, int rings, long ringBytes, int rcCap) {
    int leader = leaderOf(rank, ppn);
    String published = kvs.lookup("node-rings", leader);
    Path path = Path.of(published).toAbsolutePath().normalize();
    // only a node file of this host's directory, never a link: a member must not make us map any other file
    if (!directory().toAbsolutePath().normalize().equals(path.getParent()) || !NAME.matcher(path.getFileName()
        .toString()).matches() || !Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
      throw new IllegalStateException("node rings: rank " + leader + " published node-rings='" + published
          + "', which is not a node file (" + directory() + "/verbs4j-mp-<uuid>.rings)");
    }
    try {
      if (!Files.getOwner(path, LinkOption.NOFOLLOW_LINKS).getName().equals(System.getProperty("user.name"))
          || !Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS).equals(OWNER_ONLY)) {
        throw new IllegalStateException("node rings: " + path + " is not this user's with mode rw-------");
      }
    } catch (IOException | UnsupportedOperationException e) {
      throw new IllegalStateException("node rings: cannot check the owner and mode of " + path, e);
    }
    long length = fileBytes(rings, ringBytes);
    return new NodeRings(rank / ppn, leader, rings, ringBytes, rcCap, path, map(path, length, false));
  }

  /** @return where node files live: {@code /dev/shm} where it exists, else the temporary directory */
  static Path directory() {
    Path shm = Path.of("/dev/shm");
    return Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
  }

  private static MappedByteBuffer map(Path path, long length, boolean create) {
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
        LinkOption.NOFOLLOW_LINKS)) {
      if (create) {
        ch.truncate(0);
        ch.write(ByteBuffer.wrap(new byte[] {0}), length - 1); // sparse: pages are made when touched
      } else if (ch.size() != length) {
        throw new IllegalStateException("node rings: " + path + " holds " + ch.size() + " bytes, expected " + length
            + " (do the ranks of a node run with the same settings?)");
      }
      return ch.map(FileChannel.MapMode.READ_WRITE, 0, length);
    } catch (IOException e) {
      throw new UncheckedIOException("node rings: cannot map " + path + " (the ranks of a node must share a host)",
          e);
    }
  }

  /** The first rank, once every rank of the node has mapped the file: removes its name. */
  void unlink() {
    deleteQuietly(path);
  }

  private static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException ignored) {
      // a name left in /dev/shm is reclaimed with the machine; nothing depends on it
    }
  }

  /** @return whether this rank created the file (and counts its bytes) */
  boolean leader(int rank) {
    return rank == leader;
  }

  /** @return the node's number */
  int node() {
    return node;
  }

  /** @return the file's length */
  long bytes() {
    return fileBytes(rings, ringBytes);
  }

  /**
   * Takes the node's next free ring.
   *
   * @return the ring (little-endian), or null if the node's ranks hold all of them
   */
  ByteBuffer takeRing() {
    while (true) {
      int taken = header.getIntVolatile(RINGS_TAKEN);
      if (taken >= rings) {
        return null;
      }
      if (header.compareAndSetInt(RINGS_TAKEN, taken, taken + 1)) {
        return mapped.slice(Math.toIntExact(HEADER + taken * ringBytes), Math.toIntExact(ringBytes))
            .order(ByteOrder.LITTLE_ENDIAN);
      }
    }
  }

  /** @return whether the node had room for another RC link, now counted */
  boolean takeRcLink() {
    while (true) {
      int held = header.getIntVolatile(RC_HELD);
      if (held >= rcCap) {
        return false;
      }
      if (header.compareAndSetInt(RC_HELD, held, held + 1)) {
        return true;
      }
    }
  }

  /** An RC link counted by {@link #takeRcLink} was not made after all. */
  void releaseRcLink() {
    header.getAndAddInt(RC_HELD, -1);
  }

  /** @return rings taken by the node's ranks */
  int ringsTaken() {
    return header.getIntVolatile(RINGS_TAKEN);
  }

  /** @return RC links the node's ranks hold */
  int rcLinksHeld() {
    return header.getIntVolatile(RC_HELD);
  }

  /**
   * Removes the file's name if it is still there (a failure before {@link #unlink}). The mapping is
   * left to the garbage collector rather than unmapped here: a memory region over a ring, or a late
   * reader of one, must never find its memory gone (an unmapped page would crash the JVM).
   */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      deleteQuietly(path);
    }
  }
}
