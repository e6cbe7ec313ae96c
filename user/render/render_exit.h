/* The exit cost section of the table renderer (user/render/render_exit.c). */
#ifndef IDLESCOPE_RENDER_EXIT_H
#define IDLESCOPE_RENDER_EXIT_H

#include <stdio.h>

#include "model/model.h"

void render_exit_table(FILE *f, const struct summary *s);

#endif
