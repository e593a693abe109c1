package io.github.verbs4j.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every mirrored enum against a table written by hand from verbs.h (reference/verbs-semantics.md
 * §1, resource {@code verbs-h-constants.txt}): same constants, same values, same status strings;
 * {@code fromValue} round trips and rejects undefined values naming them.
 */
class VerbsHConstantsTest {
  /** The enums verbs4j mirrors from verbs.h (plus Errno); the table must cover each one. */
  private static final List<Class<?>> MIRRORED = List.of(WcStatus.class, WcOpcode.class, WcFlag.class,
      WrOpcode.class, SendFlag.class, Access.class, QpState.class, QpType.class, Mtu.class, AsyncEventType.class,
      QpAttrMask.class, PortState.class, AtomicCap.class, LinkLayer.class, DeviceCap.class, SrqAttrMask.class,
      MigState.class, NodeType.class, TransportType.class, Errno.class);

  private record Row(int line, String enumName, int value, String name, String str) {}

  private static final Map<String, List<Row>> TABLE = new LinkedHashMap<>();

  @BeforeAll
  static void readTable() throws IOException {
    try (InputStream in = VerbsHConstantsTest.class.getResourceAsStream("verbs-h-constants.txt")) {
      assertNotNull(in, "verbs-h-constants.txt is missing from the test resources");
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      String line;
      int n = 0;
      while ((line = r.readLine()) != null) {
        n++;
        String t = line.strip();
        if (t.isEmpty() || t.startsWith("#")) {
          continue;
        }
        String[] f = t.split("\\|");
        if (f.length < 3 || f.length > 4) {
          fail("verbs-h-constants.txt line " + n + " is malformed: " + line);
        }
        Row row = new Row(n, f[0].strip(), parse(f[1].strip(), n), f[2].strip(), f.length == 4 ? f[3].strip() : null);
        TABLE.computeIfAbsent(row.enumName(), k -> new ArrayList<>()).add(row);
      }
    }
  }

  private static int parse(String v, int line) {
    if (v.contains("<<")) {
      String[] p = v.split("<<");
      return Integer.parseInt(p[0].strip()) << Integer.parseInt(p[1].strip());
    }
    if (v.startsWith("0x")) {
      return Integer.parseInt(v.substring(2), 16);
    }
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new AssertionError("verbs-h-constants.txt line " + line + ": bad value " + v, e);
    }
  }

  private static Class<?> enumClass(String simpleName) {
    try {
      return Class.forName("io.github.verbs4j.verbs." + simpleName);
    } catch (ClassNotFoundException e) {
      throw new AssertionError("the table names enum " + simpleName + ", which does not exist", e);
    }
  }

  private static Object fromValue(Class<?> type, int value) throws Throwable {
    Method m = type.getMethod("fromValue", int.class);
    try {
      return m.invoke(null, value);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Test
  void tableCoversEveryMirroredEnumAndNothingElse() {
    Set<String> expected = new TreeSet<>();
    MIRRORED.forEach(c -> expected.add(c.getSimpleName()));
    assertEquals(expected, new TreeSet<>(TABLE.keySet()));
  }

  @Test
  void everyTableRowExistsInTheEnumWithItsValue() throws Throwable {
    for (List<Row> rows : TABLE.values()) {
      for (Row row : rows) {
        Class<?> type = enumClass(row.enumName());
        Object constant = fromValue(type, row.value());
        assertEquals(row.name(), ((Enum<?>) constant).name(),
            row.enumName() + ".fromValue(" + row.value() + ") (table line " + row.line() + ")");
        assertEquals(row.value(), ((VerbsEnum) constant).value(), row.enumName() + "." + row.name() + ".value()");
      }
    }
  }

  @Test
  void everyEnumConstantHasATableRow() {
    for (Class<?> type : MIRRORED) {
      Map<String, Integer> table = new LinkedHashMap<>();
      TABLE.getOrDefault(type.getSimpleName(), List.of()).forEach(r -> table.put(r.name(), r.value()));
      for (Object c : type.getEnumConstants()) {
        String name = ((Enum<?>) c).name();
        assertTrue(table.containsKey(name), type.getSimpleName() + "." + name + " has no row in verbs-h-constants.txt");
        assertEquals(table.get(name).intValue(), ((VerbsEnum) c).value(), type.getSimpleName() + "." + name);
      }
      assertEquals(table.size(), type.getEnumConstants().length, type.getSimpleName() + " constant count");
    }
  }

  @Test
  void valuesAreUniqueWithinEachEnum() {
    for (Map.Entry<String, List<Row>> e : TABLE.entrySet()) {
      Set<Integer> seen = new LinkedHashSet<>();
      for (Row r : e.getValue()) {
        assertTrue(seen.add(r.value()), e.getKey() + " value " + r.value() + " appears twice (line " + r.line() + ")");
      }
    }
  }

  @Test
  void wcStatusStringsMatchIbvWcStatusStr() {
    for (Row row : TABLE.get("WcStatus")) {
      WcStatus s = WcStatus.fromValue(row.value());
      assertEquals(row.str(), s.str(), "ibv_wc_status_str(" + row.value() + ")");
      assertEquals(row.str(), WcStatus.str(row.value()));
    }
    assertEquals("unknown", WcStatus.str(24));
    assertEquals("unknown", WcStatus.str(-1));
    assertEquals("unknown", WcStatus.str(Integer.MAX_VALUE));
  }

  @Test
  void fromValueRoundTripsEveryConstant() throws Throwable {
    for (Class<?> type : MIRRORED) {
      for (Object c : type.getEnumConstants()) {
        assertEquals(c, fromValue(type, ((VerbsEnum) c).value()), type.getSimpleName() + " round trip");
      }
    }
  }

  @Test
  void fromValueOfAnUndefinedValueThrowsNamingIt() {
    for (Class<?> type : MIRRORED) {
      Set<Integer> defined = new LinkedHashSet<>();
      TABLE.get(type.getSimpleName()).forEach(r -> defined.add(r.value()));
      List<Integer> undefined = new ArrayList<>();
      int max = defined.stream().max(Integer::compare).orElseThrow();
      for (int candidate : new int[] {-2, 12345, max + 1, 4095, 4096, 1 << 30, Integer.MIN_VALUE}) {
        if (!defined.contains(candidate)) {
          undefined.add(candidate);
        }
      }
      for (int v : undefined) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> fromValue(type, v),
            type.getSimpleName() + ".fromValue(" + v + ")");
        assertTrue(e.getMessage().contains(Integer.toString(v)),
            type.getSimpleName() + ".fromValue(" + v + ") message does not name the value: " + e.getMessage());
      }
    }
  }

  @Test
  void wrAndWcOpcodesAreDifferentEnums() {
    // §1.3: WR SEND=2 gives WC SEND=0; WR RDMA_WRITE=0 gives WC RDMA_WRITE=1.
    assertEquals(WcOpcode.SEND, WrOpcode.SEND.completionOpcode());
    assertEquals(WcOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE.completionOpcode());
    assertEquals(WcOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM.completionOpcode());
    assertEquals(WcOpcode.RDMA_READ, WrOpcode.RDMA_READ.completionOpcode());
    assertEquals(WcOpcode.COMP_SWAP, WrOpcode.ATOMIC_CMP_AND_SWP.completionOpcode());
    assertEquals(WcOpcode.FETCH_ADD, WrOpcode.ATOMIC_FETCH_AND_ADD.completionOpcode());
    assertEquals(WcOpcode.SEND, WrOpcode.SEND_WITH_IMM.completionOpcode());
  }

  @Test
  void receiveCompletionsAreRecognisedByTheRecvBit() {
    // §1.2: (opcode & IBV_WC_RECV) != 0
    for (WcOpcode op : WcOpcode.values()) {
      assertEquals((op.value() & 128) != 0, op.isReceive(), op.name());
    }
  }

  @Test
  void mtuBytesAre128ShiftedByTheValue() {
    // §1.9: bytes = 128 << value
    assertEquals(256, Mtu.MTU_256.bytes());
    assertEquals(1024, Mtu.MTU_1024.bytes());
    assertEquals(4096, Mtu.MTU_4096.bytes());
    assertEquals(Mtu.MTU_2048, Mtu.ofBytes(2048));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Mtu.ofBytes(1500));
    assertTrue(e.getMessage().contains("1500"), e.getMessage());
  }

  @Test
  void flagMasksRoundTrip() {
    int m = Access.LOCAL_WRITE.value() | Access.REMOTE_READ.value() | Access.RELAXED_ORDERING.value();
    assertEquals(Set.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.RELAXED_ORDERING), Access.fromMask(m));
    assertEquals(m, Access.mask(Access.fromMask(m)));
    assertEquals(0x1ffffff & ~(0xf << 21), QpAttrMask.mask(QpAttrMask.fromMask(0x1ffffff & ~(0xf << 21))));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QpAttrMask.fromMask(1 << 21));
    assertTrue(e.getMessage().contains("200000"), e.getMessage());
  }

  @Test
  void immediateDataHelpersSwapBytesLikeHtonlOnLittleEndianHosts() {
    // §3.2: pyverbs sends htonl(1234) and checks ntohl(wc.imm_data) == 1234.
    assertEquals(0xD2040000, SendWr.htonl(1234));
    assertEquals(1234, SendWr.ntohl(SendWr.htonl(1234)));
  }
}
