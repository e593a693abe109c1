package io.github.verbs4j.fabric.fault;

import java.util.ArrayList;
import java.util.List;

/**
 * A parsed {@code verbs.fault.script}: entries joined by {@code ;}, each {@code
 * src-dst:action@i[,j...]} where {@code i} are 0-based indexes of frames sent from {@code src} to
 * {@code dst} (counting every frame that reaches the fault stage) and {@code src}/{@code dst} may be
 * {@code *}. Example: {@code 1-2:drop@3,7;2-1:corrupt@0;*-3:down@10;*-3:up@20}.
 *
 * @param entries the entries
 */
public record FaultScript(List<Entry> entries) {
  /**
   * One scripted fault.
   *
   * @param src source node or 0 for any
   * @param dst destination node or 0 for any
   * @param action the action
   * @param frameIndex the frame index on the pair
   */
  public record Entry(int src, int dst, FaultAction action, long frameIndex) {}

  /** Copies the list. */
  public FaultScript {
    entries = List.copyOf(entries);
  }

  /**
   * @param script the script text (empty = none)
   * @return the script
   * @throws IllegalArgumentException naming {@code verbs.fault.script} and the bad entry
   */
  public static FaultScript parse(String script) {
    List<Entry> out = new ArrayList<>();
    if (script == null || script.isBlank()) {
      return new FaultScript(out);
    }
    for (String raw : script.split(";")) {
      String e = raw.trim();
      if (e.isEmpty()) {
        continue;
      }
      try {
        int colon = e.indexOf(':');
        int at = e.indexOf('@');
        int dash = e.indexOf('-');
        if (colon < 0 || at < colon || dash < 0 || dash > colon) {
          throw new IllegalArgumentException("expected src-dst:action@index[,index...]");
        }
        int src = node(e.substring(0, dash));
        int dst = node(e.substring(dash + 1, colon));
        FaultAction a = FaultAction.fromWord(e.substring(colon + 1, at));
        for (String idx : e.substring(at + 1).split(",")) {
          long i = Long.parseLong(idx.trim());
          if (i < 0) {
            throw new IllegalArgumentException("frame index " + i + " is negative");
          }
          out.add(new Entry(src, dst, a, i));
        }
      } catch (RuntimeException ex) {
        throw new IllegalArgumentException("verbs.fault.script entry '" + e + "': " + ex.getMessage(), ex);
      }
    }
    return new FaultScript(out);
  }

  private static int node(String s) {
    String t = s.trim();
    if (t.equals("*")) {
      return 0;
    }
    int n = Integer.parseInt(t);
    if (n < 1 || n > 0xFFFF) {
      throw new IllegalArgumentException("node " + n + " outside [1, 65535]");
    }
    return n;
  }
}
