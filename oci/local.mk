# oci
