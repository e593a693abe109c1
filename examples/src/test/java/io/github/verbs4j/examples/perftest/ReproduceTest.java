package io.github.verbs4j.examples.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.verbs4j.examples.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code verbs4j reproduce}: one command runs a seed's experiments and prints paper | modelled | ratio. */
class ReproduceTest {
  private static final Pattern ROW = Pattern.compile("\\| ib \\(ConnectX-3 QDR\\) atomic latency \\| µs \\| 1\\.50 \\| "
      + "(\\S+) \\| (\\S+) \\|");

  @Test
  void seed000sIbAtomicRowComesOutOfARunInModelledTime() {
    CommandLine cl = Main.commandLine();
    StringWriter out = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(new StringWriter()));
    assertEquals(0, cl.execute("reproduce", "000", "--only", "ConnectX-3", "--lat-iters", "100"));
    String table = out.toString();
    Matcher m = ROW.matcher(table);
    assertTrue(m.find(), table);
    // seed 000: InfiniBand CAS/FAA 1.5 us; the profile's per-packet cost is fitted to it
    assertEquals(1.0, Double.parseDouble(m.group(2)), 0.1, table);
    assertEquals(1, table.lines().filter(l -> l.startsWith("| ") && !l.startsWith("| figure")).count(), table);
  }

  @Test
  void seed000sSmallSendRecvAndMpiPingPongAreWithinTenPercentOfThePaper() {
    CommandLine cl = Main.commandLine();
    StringWriter out = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(new StringWriter()));
    assertEquals(0, cl.execute("reproduce", "000", "--only", "tca Send/Recv latency, 2 B", "--lat-iters", "100"));
    assertEquals(0, cl.execute("reproduce", "000", "--only", "ping-pong", "--lat-iters", "100"));
    assertEquals(0, cl.execute("reproduce", "000", "--only", "Write-with-imm latency, 2 B", "--lat-iters", "100"));
    String table = out.toString();
    // seed 000: Send/Recv 3.5 us (CPU memory); the host poll is fitted to it, the path is the model's
    Matcher send = Pattern.compile("\\| tca Send/Recv latency, 2 B \\| µs \\| 3\\.50 \\| (\\S+) \\| (\\S+) \\|")
        .matcher(table);
    assertTrue(send.find(), table);
    assertEquals(1.0, Double.parseDouble(send.group(2)), 0.1, table);
    // seed 000: WRITE with immediate 3.5 us; predicted (the data path of a WRITE, the CQE of a SEND)
    Matcher write = Pattern.compile(
        "\\| tca RDMA Write-with-imm latency, 2 B \\| µs \\| 3\\.50 \\| (\\S+) \\| (\\S+) \\|").matcher(table);
    assertTrue(write.find(), table);
    assertEquals(1.0, Double.parseDouble(write.group(2)), 0.1, table);
    // seed 000: MPI over TCA Verbs 3.6 us; predicted (the message-passing layer over the same path)
    Matcher mpi = Pattern.compile("\\| MPI ping-pong over tca, 8 B \\| µs \\| 3\\.60 \\| (\\S+) \\| (\\S+) \\|")
        .matcher(table);
    assertTrue(mpi.find(), table);
    assertEquals(1.0, Double.parseDouble(mpi.group(2)), 0.1, table);
  }

  @Test
  void seed000sRdmaReadBandwidthStreamsOneMibReadsInModelledTime() {
    CommandLine cl = Main.commandLine();
    StringWriter out = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(new StringWriter()));
    assertEquals(0, cl.execute("reproduce", "000", "--only", "Read bandwidth", "--bw-iters", "32"));
    String table = out.toString();
    Matcher m = Pattern.compile("\\| tca RDMA Read bandwidth, 1 MiB \\| GB/s \\| 3\\.50 \\| (\\S+) \\| (\\S+) \\|")
        .matcher(table);
    assertTrue(m.find(), table);
    // seed 000: RDMA Read 3.5 GB/s (CPU memory); predicted from the PEACH2 link and DMA primitives
    assertEquals(1.0, Double.parseDouble(m.group(2)), 0.1, table);
    // the GPU row (--use-device-memory): the target's DMA reads device memory at seed 000's 2.8 GB/s
    // (PEACH2 alone, §2.6); the 2.7 GB/s of TCA Verbs is predicted
    Matcher gpu = Pattern.compile("\\| tca RDMA Read bandwidth, 1 MiB, GPU \\| GB/s \\| 2\\.70 \\| (\\S+) \\| (\\S+) \\|")
        .matcher(table);
    assertTrue(gpu.find(), table);
    assertEquals(1.0, Double.parseDouble(gpu.group(2)), 0.1, table);
  }

  @Test
  void seed000sGpuLatenciesAddOneGdrcopyReadAndAreWithinTenPercentOfThePaper() {
    CommandLine cl = Main.commandLine();
    StringWriter out = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(new StringWriter()));
    assertEquals(0, cl.execute("reproduce", "000", "--only", "latency, 2 B", "--lat-iters", "100"));
    assertEquals(0, cl.execute("reproduce", "000", "--only", "Read latency, 8 B", "--lat-iters", "100"));
    String table = out.toString();
    // seed 000 §4.4: GPU memory 4.2 / 4.2 / 7.2 us against CPU memory 3.5 / 3.5 / 6.5 us. gdrcopy's read
    // is fitted to the Send/Recv pair; the Write-with-immediate and Read rows are predicted by it
    String[][] pairs = {{"tca Send/Recv latency, 2 B", "4\\.20"}, {"tca RDMA Write-with-imm latency, 2 B", "4\\.20"},
        {"tca RDMA Read latency, 8 B", "7\\.20"}};
    for (String[] pair : pairs) {
      Matcher cpu = Pattern.compile("\\| " + pair[0] + " \\| µs \\| \\S+ \\| (\\S+) \\|").matcher(table);
      Matcher gpu = Pattern.compile("\\| " + pair[0] + ", GPU \\| µs \\| " + pair[1] + " \\| (\\S+) \\| (\\S+) \\|")
          .matcher(table);
      assertTrue(cpu.find() && gpu.find(), pair[0] + "\n" + table);
      assertEquals(1.0, Double.parseDouble(gpu.group(2)), 0.1, table);
      assertEquals(0.70, Double.parseDouble(gpu.group(1)) - Double.parseDouble(cpu.group(1)), 0.011,
          pair[0] + ": one gdrcopy read of the GPU buffer on the path\n" + table);
    }
  }

  @Test
  void seed001sPeach2FiguresAreEachWithinTenPercentOfThePaper() {
    CommandLine cl = Main.commandLine();
    StringWriter out = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(new StringWriter()));
    assertEquals(0, cl.execute("reproduce", "001"));
    String table = out.toString();
    Matcher m = Pattern.compile("(?m)^\\| ([^|]+) \\| [^|]+ \\| (\\S+) \\| (\\S+) \\| (\\S+) \\|$").matcher(table);
    int rows = 0;
    while (m.find()) {
      if (m.group(1).equals("figure")) {
        continue;
      }
      rows++;
      double ratio = Double.parseDouble(m.group(4));
      if (m.group(1).startsWith("register mode")) {
        // seed 001 §4.1.1: 30-40 % faster at 2 KiB and below (35 shown)
        double pct = Double.parseDouble(m.group(3));
        assertTrue(pct >= 27 && pct <= 44, m.group(1) + ": " + pct + " %\n" + table);
      } else {
        assertEquals(1.0, ratio, 0.1, m.group(1) + "\n" + table);
      }
    }
    assertEquals(9, rows, table);
    // one N port: two channels together never beat its theoretical 3.66 GB/s
    Matcher two = Pattern.compile("\\| two DMA channels[^|]*\\| GB/s \\| 3\\.50 \\| (\\S+) \\|").matcher(table);
    assertTrue(two.find(), table);
    assertTrue(Double.parseDouble(two.group(1)) <= 3.66, table);
  }

  @Test
  void anUnknownSeedIsRefusedByName() {
    CommandLine cl = Main.commandLine();
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err));
    assertNotEquals(0, cl.execute("reproduce", "007"));
    assertTrue(err.toString().contains("SEED=007"), err.toString());
  }

  @Test
  void aNegativeHimenoIterationCountIsRefusedByName() {
    CommandLine cl = Main.commandLine();
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err));
    assertNotEquals(0, cl.execute("reproduce", "000", "--himeno-iters", "-1"));
    assertTrue(err.toString().contains("--himeno-iters=-1"), err.toString());
  }
}
