/* theme: colours named by role, with monochrome and ASCII fallbacks. */
#ifndef SV_THEME_H
#define SV_THEME_H

#include <stdbool.h>
#include <stdint.h>

typedef enum theme_role {
    ROLE_NORMAL,
    ROLE_TITLE,      /* top bar */
    ROLE_STATUS,     /* bottom bar */
    ROLE_HEADER,     /* table headers, ruler */
    ROLE_SELECTED,   /* cursor row / selected call */
    ROLE_DIM,        /* secondary text */
    ROLE_WARNING,
    ROLE_AWAIT,      /* the awaited share of a call */
    ROLE_DENSE,      /* a cell holding several calls */
    ROLE_SEARCH,     /* search matches */
    ROLE_SRC_KEYWORD,
    ROLE_SRC_STRING,
    ROLE_SRC_COMMENT,
    ROLE_SRC_DECORATOR,
    ROLE_SRC_NUMBER,
    ROLE_BAR0,       /* region colours: ROLE_BAR0 + (hash % THEME_NBARS) */
    THEME_NBARS = 8,
    ROLE_COUNT = ROLE_BAR0 + 8
} theme_role;

/* A stable colour for a region name (same name, same colour, every run). */
int theme_region_role(const char *name);

#endif
