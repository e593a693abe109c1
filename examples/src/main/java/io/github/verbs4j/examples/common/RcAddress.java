package io.github.verbs4j.examples.common;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one side of an RC connection tells the other (perftest's {@code struct pingpong_dest}): its
 * LID, QP number and first PSN, the rkey and address of its buffer, how many RDMA READ/atomic
 * requests it accepts, and its port's active MTU.
 *
 * @param lid the port's LID
 * @param qpn the QP number
 * @param psn the first PSN the QP sends (24 bits)
 * @param rkey the buffer's remote key (0 if none)
 * @param vaddr the buffer's address (0 if none)
 * @param outReads the responder resources for RDMA READ and atomics ({@code max_dest_rd_atomic})
 * @param mtu the active MTU in bytes
 */
public record RcAddress(int lid, int qpn, int psn, int rkey, long vaddr, int outReads, int mtu) {

  /** @return a text form for the job's key-value store */
  public String encode() {
    return "lid=" + lid + ",qpn=" + qpn + ",psn=" + psn + ",rkey=" + rkey + ",vaddr=" + vaddr + ",out=" + outReads
        + ",mtu=" + mtu;
  }

  /**
   * @param text what {@link #encode()} produced
   * @return the address
   * @throws IllegalArgumentException naming the missing or malformed field
   */
  public static RcAddress decode(String text) {
    Map<String, String> f = new LinkedHashMap<>();
    for (String part : text.split(",")) {
      int eq = part.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("malformed peer address '" + text + "': field '" + part + "'");
      }
      f.put(part.substring(0, eq), part.substring(eq + 1));
    }
    return new RcAddress(field(f, "lid", text), field(f, "qpn", text), field(f, "psn", text), field(f, "rkey", text),
        Long.parseLong(require(f, "vaddr", text)), field(f, "out", text), field(f, "mtu", text));
  }

  private static int field(Map<String, String> f, String name, String text) {
    return Integer.parseInt(require(f, name, text));
  }

  private static String require(Map<String, String> f, String name, String text) {
    String v = f.get(name);
    if (v == null) {
      throw new IllegalArgumentException("peer address '" + text + "' lacks field " + name);
    }
    return v;
  }
}
