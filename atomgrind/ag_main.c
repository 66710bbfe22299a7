/* ag_main.c -- atomgrind: registration with the Valgrind core and wiring.
 *
 * atomgrind checks that atomic regions, marked in the program with
 * ATOMGRIND_ATOMIC_BEGIN/END (<valgrind/atomgrind.h>), ran atomically
 * (conflict-serializably) in the observed execution, and optionally looks
 * for happens-before data races.  See docs/atomgrind.md. */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"    /* VG_(details_*), VG_(needs_*), VG_(track_*) */
#include "pub_tool_vkiscnums.h"    /* __NR_exit */
#include "ag_analysis.h"           /* ag_analysis_init/fini, ag_an_forget */
#include "ag_deadlock.h"           /* a thread's wait ends with it */
#include "ag_clientreq.h"          /* ag_handle_client_request */
#include "ag_cycles.h"             /* ag_cycles_init */
#include "ag_defsupp.h"            /* atomgrind.supp */
#include "ag_errors.h"             /* ag_errors_init */
#include "ag_fd.h"                 /* descriptors and system calls */
#include "ag_instrument.h"         /* ag_instrument */
#include "ag_options.h"            /* option callbacks, ag_options_check */
#include "ag_poll.h"               /* sleeps and yields: polling loops */
#include "ag_record.h"             /* ag_record_init/fini */
#include "ag_regions.h"            /* a thread's regions end with it */
#include "ag_replace_malloc.h"     /* ag_replace_malloc_*: the heap */
#include "ag_sched.h"              /* ag_sched_* set-up, exit line, syscalls */
#include "ag_shared.h"             /* ag_shared_fini: --stats */
#include "ag_spec.h"               /* regions from function specs, frames */
#include "ag_sync.h"               /* ag_sync_init */
#include "ag_threads.h"            /* ag_threads_init */

/* The core's --read-inline-info: not in the public headers, but exported. */
extern Bool VG_(clo_read_inline_info);

static void ag_die_mem(Addr a, SizeT len) { ag_an_forget(a, len); }
/* (the core unmaps a big freed heap block's memory without telling the
   tool, and the free's write stays until the address is reused) */
static void ag_new_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di)
{
   (void)rr; (void)ww; (void)xx; (void)di;
   ag_an_forget(a, len);
}

/* A thread's function regions end before the thread does. */
static void ag_thread_exit(ThreadId vgtid)
{
   ag_rg_thread_exit(vgtid);
   ag_deadlock_exit(vgtid);          /* its ThreadId may be reused */
   ag_poll_thread_exit(vgtid);
   ag_threads_exit(vgtid);
}

/* The core keeps one pair of system-call callbacks: descriptors' ordering
   (ag_fd.c) around the scheduler's turn (ag_sched.c), in the order the two
   modules chained them before: the release before the thread may give up
   the turn, the acquire once it has it back. */
static void ag_pre_syscall(ThreadId vgtid, UInt sysno, UWord *args, UInt nargs)
{
   ag_fd_pre_syscall(vgtid, sysno, args);
   /* a thread's end may leave the others blocked for good (ag_deadlock.c);
      then they end too: nobody waits for them at the scheduler's points */
   if (sysno == __NR_exit && ag_deadlock_thread_ends(vgtid))
      ag_sched_end_run();
   ag_sched_pre_syscall(vgtid, sysno, args, nargs);
}

static void ag_post_syscall(ThreadId vgtid, UInt sysno, UWord *args, UInt nargs,
                            SysRes res)
{
   ag_sched_post_syscall(vgtid, sysno, args, nargs, res);
   ag_fd_post_syscall(vgtid, sysno, args, res);
   ag_poll_post_syscall(vgtid, sysno, args);
}

static void ag_post_clo_init(void)
{
   ag_options_check();
   ag_defsupp_load();
   ag_sched_init();
   ag_threads_init();
   ag_sync_init();
   ag_record_init();
   ag_cycles_init();
   ag_analysis_init();
   ag_replace_malloc_post_clo_init();
   ag_spec_init();        /* also the dead stack (--check-stack-var) */
   ag_fd_init();
   VG_(track_pre_thread_ll_exit)(ag_thread_exit);
   /* memory that goes away starts fresh when reused */
   VG_(track_die_mem_munmap)(ag_die_mem);
   VG_(track_die_mem_brk)(ag_die_mem);
   VG_(track_new_mem_mmap)(ag_new_mmap);
}

static void ag_fini(Int exitcode)
{
   (void)exitcode;
   ag_spec_fini();
   ag_analysis_fini();
   ag_record_fini();
   ag_sched_fini();
   ag_shared_fini();
   ag_replace_malloc_fini();
}

static void ag_pre_clo_init(void)
{
   VG_(details_name)("Atomgrind");   /* also the prefix in suppression files */
   VG_(details_version)("0.1.0");
   VG_(details_description)("an atomicity violation detector");
   VG_(details_copyright_author)("Copyright (C) 2026, the atomgrind developers.");
   VG_(details_bug_reports_to)("the atomgrind issue tracker");
   VG_(details_avg_translation_sizeB)(320);
   /* inlined frames in stacks, as Helgrind and DRD: reports should name
      the caller's line, not atomic_base.h or gthr-default.h.  The core
      parses --read-inline-info after this, so the user can still say no. */
   VG_(clo_read_inline_info) = True;

   VG_(basic_tool_funcs)(ag_post_clo_init, ag_instrument, ag_fini);
   VG_(needs_command_line_options)(ag_process_cmd_line_option,
                                   ag_print_usage, ag_print_debug_usage);
   VG_(needs_client_requests)(ag_handle_client_request);
   ag_errors_init();
   ag_replace_malloc_init();
   ag_sched_pre_clo_init();
   VG_(needs_syscall_wrapper)(ag_pre_syscall, ag_post_syscall);
}

VG_DETERMINE_INTERFACE_VERSION(ag_pre_clo_init)
