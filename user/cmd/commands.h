/* Subcommand entry points: argv[0] is the subcommand's name; each returns
 * the process exit code. */
#ifndef IDLESCOPE_COMMANDS_H
#define IDLESCOPE_COMMANDS_H

int cmd_record(int argc, char **argv);
int cmd_hist(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_ab(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_advise(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_top(int argc, char **argv);

#endif
