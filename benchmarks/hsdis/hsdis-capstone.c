/*
 * A HotSpot disassembler plug-in (hsdis) over Capstone, for reading the JIT's code locally:
 * -XX:+UnlockDiagnosticVMOptions -XX:CompileCommand=print,Class::method prints machine code
 * only through such a plug-in, and Debian ships none that JDK 17 can call (libhsdis0-fcml
 * exports only the old decode_instructions). Not part of the build; see docs/PERFORMANCE.md.
 *
 *   apt-get install libcapstone-dev
 *   gcc -O2 -shared -fPIC -o hsdis-amd64.so hsdis-capstone.c -lcapstone
 *   ln -sf "$PWD/hsdis-amd64.so" "$JAVA_HOME/lib/hsdis-amd64.so"
 *
 * HotSpot calls decode_instructions_virtual with the code's address range and bytes, a callback
 * for events ("insn" before an instruction, "/insn" after it, at which it prints its own
 * annotations: block comments, bytecode positions) and a printf-like callback for the text.
 */
#include <stdint.h>
#include <capstone/capstone.h>

typedef void *(*event_callback)(void *stream, const char *event, void *arg);
typedef int (*printf_callback)(void *stream, const char *format, ...);

void *decode_instructions_virtual(uintptr_t start_va, uintptr_t end_va, unsigned char *buffer,
                                  uintptr_t length, event_callback on_event, void *event_stream,
                                  printf_callback print, void *print_stream, const char *options,
                                  int newline) {
  (void) end_va;
  (void) options;
  csh handle;
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK) {
    return (void *) start_va;
  }
  cs_insn *insns;
  size_t count = cs_disasm(handle, buffer, length, start_va, 0, &insns);
  uintptr_t pc = start_va;
  for (size_t i = 0; i < count; i++) {
    pc = insns[i].address;
    if (on_event) on_event(event_stream, "insn", (void *) pc);
    print(print_stream, "%s\t%s", insns[i].mnemonic, insns[i].op_str);
    pc += insns[i].size;
    if (on_event) on_event(event_stream, "/insn", (void *) pc);
    if (newline) print(print_stream, "\n");
  }
  if (count > 0) cs_free(insns, count);
  cs_close(&handle);
  return (void *) pc;
}
