package io.github.verbs4j.examples.launcher;

import java.util.Optional;

/**
 * A child of {@code verbs4j run} exits when its launcher dies, even when the launcher was killed
 * with SIGKILL and could not run its shutdown hook: the launcher passes its pid in {@value #PROPERTY},
 * and the child halts as soon as that process is gone.
 */
public final class ParentWatch {
  /** The system property carrying the launcher's pid. */
  public static final String PROPERTY = "verbs4j.parent.pid";
  /** Exit code of a child whose launcher vanished (128 + SIGHUP). */
  public static final int ORPHAN_EXIT = 129;

  private ParentWatch() {}

  /** Starts watching the process named by {@value #PROPERTY}, if the property is set. */
  public static void startFromSystemProperty() {
    String pid = System.getProperty(PROPERTY);
    if (pid == null || pid.isBlank()) {
      return;
    }
    long parent;
    try {
      parent = Long.parseLong(pid.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(PROPERTY + "=" + pid + " is not a process id", e);
    }
    Optional<ProcessHandle> handle = ProcessHandle.of(parent);
    if (handle.isEmpty() || !handle.get().isAlive()) {
      orphaned(parent);
    }
    handle.get().onExit().thenRun(() -> orphaned(parent));
  }

  private static void orphaned(long parent) {
    System.err.println("verbs4j: launcher " + parent + " is gone; exiting");
    System.err.flush();
    ProcessHandle.current().descendants().forEach(ProcessHandle::destroyForcibly);
    Runtime.getRuntime().halt(ORPHAN_EXIT);
  }
}
