package io.github.verbs4j.tca.peach2;

import io.github.verbs4j.fabric.topo.Peach2Topology;
import io.github.verbs4j.fabric.topo.Port;
import java.util.ArrayList;
import java.util.List;

/**
 * One board's routing registers (seed 001 §3.4): for each port a few (mask, low, high) registers;
 * a write whose address, masked, falls in a register's range leaves by that port. The N register
 * covers the board's own slice; the others cover runs of destination slices reached through E, W
 * or S. Because slices are aligned, comparing the upper address bits is enough, and routing needs
 * no translation table. Routes are static shortest paths of the fabric's {@link Peach2Topology}
 * (ties prefer S, then E, then W), programmed here as the board's management processor would.
 * Immutable.
 */
public final class AddressMap {
  /**
   * One routing register.
   *
   * @param port the out port
   * @param mask the address mask (the slice bits)
   * @param low lowest masked address routed to {@code port}
   * @param high highest masked address routed to {@code port}
   */
  public record Register(Port port, long mask, long low, long high) {
    /**
     * @param address a global address
     * @return whether this register routes it
     */
    public boolean matches(long address) {
      long m = address & mask;
      return Long.compareUnsigned(m, low) >= 0 && Long.compareUnsigned(m, high) <= 0;
    }
  }

  private final int node;
  private final Register[] registers;

  private AddressMap(int node, List<Register> registers) {
    this.node = node;
    this.registers = registers.toArray(new Register[0]);
  }

  /**
   * Programs the registers of board {@code node} from the topology's routes.
   *
   * @param topology the sub-cluster
   * @param window its global address map
   * @param node the board
   * @return the board's address map
   */
  public static AddressMap forBoard(Peach2Topology topology, GlobalAddressMap window, int node) {
    long mask = -1L << window.sliceBits();
    List<Register> regs = new ArrayList<>();
    regs.add(new Register(Port.N, mask, window.nodeBase(node), window.nodeBase(node)));
    int nodes = topology.maxNodes();
    for (Port p : new Port[] {Port.S, Port.E, Port.W}) {
      int runStart = -1;
      for (int d = 1; d <= nodes + 1; d++) {
        boolean via = d <= nodes && d != node && topology.route(node, d).outPort(0) == p.value();
        if (via && runStart < 0) {
          runStart = d;
        } else if (!via && runStart >= 0) {
          regs.add(new Register(p, mask, window.nodeBase(runStart), window.nodeBase(d - 1)));
          runStart = -1;
        }
      }
    }
    return new AddressMap(node, regs);
  }

  /** @return the board */
  public int node() {
    return node;
  }

  /**
   * Routes a write by its address, as the hardware compares it against each register.
   *
   * @param address a global address
   * @return the out port ({@link Port#N} for the board's own slice), or null if no register matches
   */
  public Port route(long address) {
    for (Register r : registers) {
      if (r.matches(address)) {
        return r.port();
      }
    }
    return null;
  }

  /** @return the registers, N first */
  public List<Register> registers() {
    return List.of(registers);
  }

  @Override
  public String toString() {
    return "AddressMap{node=" + node + ", registers=" + List.of(registers) + "}";
  }
}
