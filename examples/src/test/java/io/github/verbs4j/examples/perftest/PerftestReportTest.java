package io.github.verbs4j.examples.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.verbs4j.examples.common.RcAddress;
import org.junit.jupiter.api.Test;

class PerftestReportTest {
  @Test
  void latencyRowHasPerftestsColumnsAndTabs() {
    LatencyStats s = new LatencyStats(2, 1000, 1.10, 4.20, 1.15, 1.17, 0.05, 1.40, 4.20);
    assertEquals(" 2       1000          1.10           4.20         1.15     \t       1.17        \t0.05   \t\t1.40    "
        + "\t\t4.20   ", PerftestReport.latRow(s));
  }

  @Test
  void latencyHeaderIsPerftestsResultFmtLat() {
    assertEquals(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]"
        + "   99% percentile[usec]   99.9% percentile[usec]", PerftestReport.LAT_HEADER);
  }

  @Test
  void bandwidthRowAndHeaders() {
    BandwidthStats s = new BandwidthStats(65536, 5000, 2150.1, 2101.0, 0.033616, false);
    assertEquals(" 65536      5000             2150.10            2101.00\t\t     0.033616",
        PerftestReport.bwRow(s));
    assertEquals(" #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]",
        PerftestReport.bwHeader(false));
    assertEquals(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]",
        PerftestReport.bwHeader(true));
  }

  @Test
  void sendLatencyHeaderBlock() {
    TestInfo info = new TestInfo(Verb.SEND, false, null, "sim_ib0", "IB", "IB", 1, 512, 100, 16, 4096, 236, 16,
        "coordinator");
    String line = "-".repeat(87);
    assertEquals(line + "\n"
        + "                    Send Latency Test\n"
        + " Dual-port       : OFF\t\tDevice         : sim_ib0\n"
        + " Number of qps   : 1\t\tTransport type : IB\n"
        + " Connection type : RC\t\tUsing SRQ      : OFF\n"
        + " PCIe relax order: Unsupported\t\tLock-free\t: Unsupported\n"
        + " ibv_wr* API     : OFF\t\tUsing Enhanced Reorder      : OFF\n"
        + " TX depth        : 1\n"
        + " RX depth        : 512\n"
        + " Mtu             : 4096[B]\n"
        + " Link type       : IB\n"
        + " Max inline data : 236[B]\n"
        + " rdma_cm QPs\t : OFF\n"
        + " Data ex. method : coordinator\n"
        + line, PerftestReport.header(info));
  }

  @Test
  void atomicBandwidthTitlesAndReadFields() {
    TestInfo atomic = new TestInfo(Verb.ATOMIC, false, "FETCH_AND_ADD", "d", "IB", "IB", 1, 0, 100, 16, 1024, 0, 4,
        "coordinator");
    String h = PerftestReport.header(atomic);
    assertEquals("                    Atomic FETCH_AND_ADD Latency Test", h.split("\n")[1]);
    assertEquals(true, h.contains("\n Outstand reads  : 4\n"));
    assertEquals(false, h.contains("RX depth"));
    TestInfo bw = new TestInfo(Verb.WRITE, true, null, "d", "IB", "IB", 128, 0, 100, 16, 1024, 220, 4, "x");
    String hb = PerftestReport.header(bw);
    assertEquals("                    RDMA_Write BW Test", hb.split("\n")[1]);
    assertEquals(true, hb.contains("\n CQ Moderation   : 100\n CQE Poll Batch  : 16\n"));
  }

  @Test
  void addressLinesFollowTheVerb() {
    RcAddress a = new RcAddress(1, 0x11, 0x2a3b4c, 0x1234, 0x7f0000001000L, 16, 4096);
    assertEquals(" local address: LID 0x01 QPN 0x0011 PSN 0x2a3b4c", PerftestReport.addressLine("local", a, Verb.SEND));
    assertEquals(" local address: LID 0x01 QPN 0x0011 PSN 0x2a3b4c", PerftestReport.addressLine("local", a,
        Verb.ATOMIC));
    assertEquals(" remote address: LID 0x01 QPN 0x0011 PSN 0x2a3b4c RKey 0x001234 VAddr 0x007f0000001000",
        PerftestReport.addressLine("remote", a, Verb.WRITE));
    assertEquals(" remote address: LID 0x01 QPN 0x0011 PSN 0x2a3b4c OUT 0x10 RKey 0x001234 VAddr 0x007f0000001000",
        PerftestReport.addressLine("remote", a, Verb.READ));
  }
}
