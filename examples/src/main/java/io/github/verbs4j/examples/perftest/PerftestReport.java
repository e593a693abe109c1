package io.github.verbs4j.examples.perftest;

import io.github.verbs4j.examples.common.RcAddress;

/**
 * perftest's report text (reference/verbs-semantics.md §7.3): the header block, the address lines,
 * and the latency and bandwidth tables, field for field ({@code ctx_print_test_info},
 * {@code ctx_print_pingpong_data}, {@code RESULT_FMT_LAT}, {@code REPORT_FMT_LAT},
 * {@code RESULT_FMT}, {@code REPORT_FMT}). Every method returns text without the final newline.
 */
public final class PerftestReport {
  /** perftest's {@code RESULT_LINE}: 87 dashes. */
  public static final String RESULT_LINE = "-".repeat(87);
  /** {@code RESULT_FMT_LAT}. */
  public static final String LAT_HEADER = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
      + "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]";
  /** {@code RESULT_FMT} with MiB/s. */
  public static final String BW_HEADER =
      " #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]";
  /** {@code RESULT_FMT_G}: the same with Gb/s. */
  public static final String BW_HEADER_GBITS =
      " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]";

  private PerftestReport() {}

  /**
   * The title and settings block, between two result lines.
   *
   * @param info what to show
   * @return the text
   */
  public static String header(TestInfo info) {
    StringBuilder b = new StringBuilder();
    b.append(RESULT_LINE).append('\n');
    b.append("                    ").append(info.verb().title()).append(' ');
    if (info.verb() == Verb.ATOMIC) {
      b.append(info.atomicType()).append(' ');
    }
    b.append(info.bandwidth() ? "BW " : "Latency ").append("Test\n");
    b.append(" Dual-port       : OFF\t\tDevice         : ").append(info.device()).append('\n');
    b.append(" Number of qps   : 1\t\tTransport type : ").append(info.transport()).append('\n');
    b.append(" Connection type : RC\t\tUsing SRQ      : OFF\n");
    b.append(" PCIe relax order: Unsupported\t\tLock-free\t: Unsupported\n");
    b.append(" ibv_wr* API     : OFF\t\tUsing Enhanced Reorder      : OFF\n");
    b.append(" TX depth        : ").append(info.txDepth()).append('\n');
    if (info.rxDepth() > 0) {
      b.append(" RX depth        : ").append(info.rxDepth()).append('\n');
    }
    if (info.bandwidth()) {
      b.append(" CQ Moderation   : ").append(info.cqMod()).append('\n');
      b.append(" CQE Poll Batch  : ").append(info.cqePollBatch()).append('\n');
    }
    b.append(" Mtu             : ").append(info.mtu()).append("[B]\n");
    b.append(" Link type       : ").append(info.linkType()).append('\n');
    if (info.verb() != Verb.READ && info.verb() != Verb.ATOMIC) {
      b.append(" Max inline data : ").append(info.inlineSize()).append("[B]\n");
    } else {
      b.append(" Outstand reads  : ").append(info.outReads()).append('\n');
    }
    b.append(" rdma_cm QPs\t : OFF\n");
    b.append(" Data ex. method : ").append(info.dataExchange()).append('\n');
    b.append(RESULT_LINE);
    return b.toString();
  }

  /**
   * {@code ctx_print_pingpong_data}: LID, QPN and PSN; for READ also the outstanding reads; for READ
   * and WRITE also the rkey and buffer address.
   *
   * @param side {@code local} or {@code remote}
   * @param a the address
   * @param verb the operation
   * @return the line
   */
  public static String addressLine(String side, RcAddress a, Verb verb) {
    StringBuilder b = new StringBuilder();
    b.append(' ').append(side).append(" address: LID ").append(CFormat.altHex(a.lid(), 4)).append(" QPN ")
        .append(CFormat.altHex(a.qpn(), 6)).append(" PSN ").append(CFormat.altHex(a.psn(), 6));
    if (verb == Verb.READ) {
      b.append(" OUT ").append(CFormat.altHex(a.outReads(), 4));
    }
    if (verb == Verb.READ || verb == Verb.WRITE) {
      b.append(" RKey ").append(CFormat.altHex(Integer.toUnsignedLong(a.rkey()), 8)).append(" VAddr ")
          .append(CFormat.altHex(a.vaddr(), 16));
    }
    return b.toString();
  }

  /**
   * {@code REPORT_FMT_LAT}: {@code " %-7lu %lu          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f
   * \t%-7.2f\t\t%-7.2f \t\t%-7.2f"}.
   *
   * @param s the row
   * @return the line
   */
  public static String latRow(LatencyStats s) {
    return " " + CFormat.integer(s.bytes(), -7) + " " + s.iterations() + "          " + CFormat.fixed(s.tMin(), -7, 2)
        + "        " + CFormat.fixed(s.tMax(), -7, 2) + "      " + CFormat.fixed(s.tTypical(), -7, 2) + "  \t       "
        + CFormat.fixed(s.tAvg(), -7, 2) + "     \t" + CFormat.fixed(s.tStdev(), -7, 2) + "\t\t"
        + CFormat.fixed(s.p99(), -7, 2) + " \t\t" + CFormat.fixed(s.p999(), -7, 2);
  }

  /**
   * @param gbits Gb/s instead of MiB/s
   * @return the BW column header
   */
  public static String bwHeader(boolean gbits) {
    return gbits ? BW_HEADER_GBITS : BW_HEADER;
  }

  /**
   * {@code REPORT_FMT}: {@code " %-7lu    %-10lu       %-7.2lf            %-7.2lf\t\t     %-7.6lf"}.
   *
   * @param s the row
   * @return the line
   */
  public static String bwRow(BandwidthStats s) {
    return " " + CFormat.integer(s.bytes(), -7) + "    " + CFormat.integer(s.iterations(), -10) + "       "
        + CFormat.fixed(s.bwPeak(), -7, 2) + "            " + CFormat.fixed(s.bwAverage(), -7, 2) + "\t\t     "
        + CFormat.fixed(s.msgRateMpps(), -7, 6);
  }
}
