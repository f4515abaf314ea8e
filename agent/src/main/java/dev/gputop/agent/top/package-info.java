/**
 * The terminal view of a snapshot: {@link dev.gputop.agent.top.TopScreen} lays out {@code top}'s
 * table, detail pane and history sparklines for a width, and {@link dev.gputop.agent.top.Cells}
 * writes a snapshot's values the way every terminal view shows them (the demo's table too).
 * Rendering only: reading the terminal and fetching the snapshot are the {@code top} command's.
 */
package dev.gputop.agent.top;
