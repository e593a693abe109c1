package io.github.verbs4j.examples.perftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultCsvTest {
  @TempDir
  Path dir;

  @Test
  void rowsAreAppendedUnderOneHeaderAndReadBack() throws Exception {
    Path csv = dir.resolve("r.csv");
    ResultRow lat = new ResultRow("send_lat", "ib, mtu 1024", "ib", "netty", "wall",
        new LatencyStats(2, 1000, 10.1, 31, 11.2, 11.4, 1, 14, 31), null);
    ResultRow bw = new ResultRow("write_bw", "tca modelled", "tca", "netty", "modelled", null,
        new BandwidthStats(65536, 5000, 2150.1, 2101, 0.033616, false));
    ResultCsv.append(csv, List.of(lat));
    ResultCsv.append(csv, List.of(bw));
    List<String> lines = Files.readAllLines(csv);
    assertEquals(3, lines.size());
    assertEquals(ResultCsv.HEADER, lines.get(0));
    assertEquals("send_lat,\"ib, mtu 1024\",ib,netty,wall,2,1000,10.100,31.000,11.200,11.400,1.000,14.000,31.000,,,,",
        lines.get(1));
    assertEquals("write_bw,tca modelled,tca,netty,modelled,65536,5000,,,,,,,,2150.100,2101.000,MiB/s,0.033616",
        lines.get(2));
    List<ResultRow> back = ResultCsv.read(csv);
    assertEquals(lat, back.get(0));
    assertEquals(bw, back.get(1));
  }

  @Test
  void aFileWithAnotherHeaderIsRefused() throws Exception {
    Path csv = dir.resolve("other.csv");
    Files.writeString(csv, "a,b\n1,2\n");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ResultCsv.append(csv, List.of()));
    assertTrue(e.getMessage().contains("--csv " + csv), e.getMessage());
  }
}
