/* The JSON form of a `cvisor --log-format json` line (cvisor-binary.h):
 * JSON is written by oci/json.h, which the command line does not see. */
#include "config.h"

#include "cvisor-binary.h"
#include "oci/json.h"

int cv_log_line_json(const char *level, const char *msg, const char *time, char **line)
{
	cleanup_jw jw w = { 0 };

	if (jw_init(&w, false, NULL) < 0)
		return -1;
	jw_keep_invalid_utf8(&w); /* a message must never be dropped for its bytes */
	jw_open(&w);
	jw_kstr(&w, "level", level);
	jw_kstr(&w, "msg", msg);
	jw_kstr(&w, "time", time);
	jw_close(&w);
	return jw_finish(&w, line, NULL, NULL);
}
