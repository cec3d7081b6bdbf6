/* A standalone linux.resources object (update --resources): the config.json
 * parser's own routines, entered at the resources level. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "cleanup.h"
#include "json.h"
#include "resources-internal.h"
#include "resources.h"

int oci_resources_parse(const char *data, size_t len, const char *name, oci_resources **out, cv_error_t *err)
{
	cleanup_jt jt_doc *doc = NULL;
	int r = jt_parse(data, len, name, &doc, err);
	if (r < 0)
		return r;
	jt_node *root = jt_root(doc);
	if (root->type != JT_OBJECT)
		return cv_error(err, EINVAL, "%s: expected a linux.resources JSON object, got %s", name,
				jt_type_name(root->type));
	oci_resources *res = calloc(1, sizeof(*res));
	if (!res)
		return cv_error(err, ENOMEM, "%s", name);
	jr_ctx c;
	/* Paths read as in config.json, like the validator's messages. */
	jr_init(&c, name, "linux.resources", err);
	r = oci_resources_parse_obj_(&c, root, res);
	if (r == 0)
		r = oci_resources_validate_(name, err, res);
	if (r < 0) {
		oci_resources_free_(res);
		return r;
	}
	*out = res;
	return 0;
}

int oci_resources_validate(const oci_resources *r, const char *name, cv_error_t *err)
{
	return oci_resources_validate_(name, err, r);
}

void oci_resources_free(oci_resources *r)
{
	oci_resources_free_(r);
}
