package io.github.verbs4j.verbs.spi;

import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.VerbsException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The open children (or users) of a verbs object, so that closing a parent with live children
 * fails with EBUSY naming them, as libibverbs' destroy calls do. Thread-safe.
 */
public final class OpenSet {
  private final Map<Object, String> open = new IdentityHashMap<>();

  /**
   * Records an open child.
   *
   * @param child the child
   * @param description how to name it in an EBUSY message, e.g. {@code RC QP 0x12}
   */
  public synchronized void add(Object child, String description) {
    open.put(child, description);
  }

  /**
   * Forgets a child (it was closed).
   *
   * @param child the child
   */
  public synchronized void remove(Object child) {
    open.remove(child);
  }

  /** @return the number of open children */
  public synchronized int size() {
    return open.size();
  }

  /**
   * Fails if any child is open.
   *
   * @param what the parent, e.g. {@code PD 3}
   * @throws VerbsException EBUSY naming up to eight open children
   */
  public synchronized void checkEmpty(String what) {
    if (!open.isEmpty()) {
      List<String> names = new ArrayList<>(open.values());
      names.sort(null);
      String list = names.size() > 8 ? String.join(", ", names.subList(0, 8)) + ", ..." : String.join(", ", names);
      throw new VerbsException(Errno.EBUSY, "cannot close " + what + ": " + open.size() + " still open (" + list + ")");
    }
  }
}
