package io.github.verbs4j.fabric.auth;

import io.github.verbs4j.fabric.FabricException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The user's private directory for the fabric's files: {@code <base>/verbs4j-<user>}, mode 0700,
 * where {@code base} is {@code verbs.fabric.uds-dir} or {@code java.io.tmpdir}. It holds the nodes'
 * Unix sockets ({@code n-<pid>-<rank>-<random>.sock}), their shared-memory rings ({@code
 * n-<pid>-<rank>-<random>.ring}, in the directory of the same name under {@code /dev/shm}) and the job secret files of coordinators on
 * this host ({@code c-<port>-<pid>.key}, mode 0600). Every name carries the owning process's id:
 * files of processes that no longer run (killed, crashed) are stale and deleted by {@link
 * #cleanStale} when a node starts; each process deletes its own on close.
 */
public final class PrivateDir {
  private static final Pattern OWNED = Pattern.compile("n-(\\d+)-\\d+-[0-9a-f]+\\.(?:sock|ring)|c-\\d+-(\\d+)\\.key");
  /** The socket names of earlier versions, directly in java.io.tmpdir. */
  private static final Pattern LEGACY = Pattern.compile("verbs4j-(\\d+)-\\d+-[0-9a-f]+\\.sock");

  private PrivateDir() {}

  /**
   * Creates (mode 0700) or checks the directory.
   *
   * @param udsDir {@code verbs.fabric.uds-dir}: the parent, or empty for java.io.tmpdir
   * @return the directory
   * @throws FabricException naming the path if it exists but belongs to another user, or cannot
   *     be created
   */
  public static Path of(String udsDir) {
    Path base = Path.of(udsDir.isEmpty() ? System.getProperty("java.io.tmpdir") : udsDir);
    String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9_.-]", "_");
    Path d = base.resolve("verbs4j-" + user);
    try {
      if (!Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) {
        try {
          Files.createDirectories(base);
          Files.createDirectory(d, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (java.nio.file.FileAlreadyExistsException raced) {
          // another process made it: checked below
        }
      }
      if (!Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) {
        throw new FabricException("private directory " + d + " is not a directory");
      }
      UserPrincipal owner = Files.getOwner(d, LinkOption.NOFOLLOW_LINKS);
      UserPrincipal me = base.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(System.getProperty("user.name"));
      if (!owner.equals(me)) {
        throw new FabricException("private directory " + d + " belongs to " + owner.getName() + ", not to "
            + me.getName() + ": set verbs.fabric.uds-dir to a directory of your own");
      }
      Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwx------"));
      return d;
    } catch (IOException e) {
      throw new FabricException("verbs.fabric.uds-dir=" + udsDir + ": cannot prepare private directory " + d + ": " + e, e);
    }
  }

  /**
   * @param dir the private directory
   * @param rank the node's rank
   * @return a fresh socket path of this process
   */
  public static Path socketPath(Path dir, int rank) {
    return dir.resolve("n-" + ProcessHandle.current().pid() + "-" + rank + "-"
        + Integer.toHexString(ThreadLocalRandom.current().nextInt()) + ".sock");
  }

  /**
   * @param dir the private directory
   * @param port the coordinator's port
   * @return this process's secret file for a coordinator on {@code port}
   */
  public static Path coordinatorKey(Path dir, int port) {
    return dir.resolve("c-" + port + "-" + ProcessHandle.current().pid() + ".key");
  }

  /**
   * @param dir the private directory
   * @param port a coordinator's port
   * @return the secret file of the running coordinator on this host and port, if any
   */
  public static Optional<Path> findCoordinatorKey(Path dir, int port) {
    String prefix = "c-" + port + "-";
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, prefix + "*.key")) {
      for (Path p : s) {
        String n = p.getFileName().toString();
        long pid = Long.parseLong(n.substring(prefix.length(), n.length() - 4));
        if (alive(pid)) {
          return Optional.of(p);
        }
      }
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  /**
   * Deletes the files of processes that no longer run, here and (old socket names) in
   * java.io.tmpdir.
   *
   * @param dir the private directory
   * @return how many files were deleted
   */
  public static int cleanStale(Path dir) {
    int n = 0;
    for (Path p : filesOfDead(dir, OWNED)) {
      n += delete(p);
    }
    for (Path p : filesOfDead(Path.of(System.getProperty("java.io.tmpdir")), LEGACY)) {
      n += delete(p);
    }
    return n;
  }

  /**
   * Deletes every file of one process (its parent calls this after killing it).
   *
   * @param dir the private directory
   * @param pid the process
   * @return how many files were deleted
   */
  public static int removeFilesOf(Path dir, long pid) {
    int n = 0;
    for (Path p : list(dir, OWNED)) {
      if (owner(p, OWNED) == pid) {
        n += delete(p);
      }
    }
    return n;
  }

  /**
   * @param dir the private directory
   * @return the files there whose process no longer runs, without deleting them
   */
  public static List<Path> leftovers(Path dir) {
    return filesOfDead(dir, OWNED);
  }

  /**
   * The build's check that no test left a socket, ring or secret file behind: fails (throws, which
   * fails {@code exec:java}) listing the files of processes that no longer run and that were made
   * since this JVM (the Maven build) started, in the private directory under java.io.tmpdir
   * (sockets, secrets) and under {@code /dev/shm} (the shm transport's mapped rings). Run at the end
   * of {@code mvn verify}; nothing is deleted.
   *
   * @param args none
   * @throws IllegalStateException listing the leftover files
   */
  public static void main(String[] args) throws IOException {
    java.time.Instant since = ProcessHandle.current().info().startInstant().orElse(java.time.Instant.EPOCH);
    List<Path> dirs = new ArrayList<>(List.of(of("")));
    if (Files.isDirectory(Path.of("/dev/shm"))) {
      dirs.add(of("/dev/shm"));
    }
    List<String> left = new ArrayList<>();
    for (Path dir : dirs) {
      for (Path p : leftovers(dir)) {
        if (!Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).toInstant().isBefore(since)) {
          left.add(p.toString());
        }
      }
    }
    if (!left.isEmpty()) {
      throw new IllegalStateException(left.size() + " file(s) of exited processes left by this build: " + left);
    }
    System.out.println("verbs4j: no socket, ring or secret file left in " + dirs + " by processes of this build");
  }

  private static List<Path> filesOfDead(Path dir, Pattern pattern) {
    List<Path> out = new ArrayList<>();
    for (Path p : list(dir, pattern)) {
      if (!alive(owner(p, pattern))) {
        out.add(p);
      }
    }
    return out;
  }

  private static List<Path> list(Path dir, Pattern pattern) {
    List<Path> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
      for (Path p : s) {
        if (pattern.matcher(p.getFileName().toString()).matches() && Files.isWritable(p)) {
          out.add(p);
        }
      }
    } catch (IOException e) {
      // unreadable: nothing of ours there
    }
    return out;
  }

  private static long owner(Path p, Pattern pattern) {
    Matcher m = pattern.matcher(p.getFileName().toString());
    if (!m.matches()) {
      return -1;
    }
    String g = m.group(1) != null ? m.group(1) : m.group(m.groupCount());
    try {
      return Long.parseLong(g);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static boolean alive(long pid) {
    return pid == ProcessHandle.current().pid() || ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  private static int delete(Path p) {
    try {
      return Files.deleteIfExists(p) ? 1 : 0;
    } catch (IOException e) {
      return 0;
    }
  }
}
