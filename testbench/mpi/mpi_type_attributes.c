/* Attributes and names on datatypes (MPI 3.1 §6.7.4, §6.8) and window
 * attribute keys: keyvals, set/get/delete, copy functions run by
 * MPI_Type_dup, delete functions by MPI_Type_free and on replacement,
 * failing callbacks, keys of the wrong kind, a key freed while attributes
 * still use it, predefined type names. */
#include <string.h>

#include "mpi_check.h"

static int copies = 0;  /* copy function calls */
static int deletes = 0; /* delete function calls */
static MPI_Datatype last_deleted_type = MPI_DATATYPE_NULL;
static void* last_deleted_value = NULL;
static int fail_copy = 0;
static int fail_delete = 0;

/* Copies the value plus one; checks the extra state it was given. */
static int copy_plus_one(MPI_Datatype oldtype, int keyval, void* extra_state, void* in, void* out, int* flag) {
    (void)oldtype;
    (void)keyval;
    CHECK(extra_state == (void*)&copies);
    ++copies;
    if (fail_copy) return MPI_ERR_OTHER;
    *(void**)out = (char*)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int count_delete(MPI_Datatype type, int keyval, void* value, void* extra_state) {
    (void)keyval;
    (void)extra_state;
    ++deletes;
    last_deleted_type = type;
    last_deleted_value = value;
    return fail_delete ? MPI_ERR_OTHER : MPI_SUCCESS;
}

/* A delete function that frees its own key (MPICH's keyval_double_free). */
static int free_key_on_delete(MPI_Datatype type, int keyval, void* value, void* extra_state) {
    (void)type;
    (void)value;
    (void)extra_state;
    ++deletes;
    CHECK_INT(MPI_Type_free_keyval(&keyval), MPI_SUCCESS);
    return MPI_SUCCESS;
}

static void* get(MPI_Datatype type, int keyval, int* flag) {
    void* value = NULL;
    *flag = -1;
    CHECK_INT(MPI_Type_get_attr(type, keyval, &value, flag), MPI_SUCCESS);
    return value;
}

static void check_name(MPI_Datatype type, const char* expected) {
    char name[MPI_MAX_OBJECT_NAME];
    int length = -1;
    CHECK_INT(MPI_Type_get_name(type, name, &length), MPI_SUCCESS);
    if (strcmp(name, expected) != 0) {
        fprintf(stderr, "FAIL: type name '%s', expected '%s'\n", name, expected);
        ++mpi_check_failures;
    }
    CHECK_INT(length, strlen(expected));
}

static void attributes_follow_dup_and_free(void) {
    int key = MPI_KEYVAL_INVALID, flag = 0;
    char base[4];
    MPI_Datatype type, copy;
    CHECK_INT(MPI_Type_create_keyval(copy_plus_one, count_delete, &key, &copies), MPI_SUCCESS);
    CHECK(key != MPI_KEYVAL_INVALID);
    MPI_Type_contiguous(2, MPI_INT, &type);

    get(type, key, &flag);
    CHECK_INT(flag, 0);
    CHECK_INT(MPI_Type_set_attr(type, key, base), MPI_SUCCESS);
    CHECK(get(type, key, &flag) == base);
    CHECK_INT(flag, 1);

    /* Dup runs the copy function: the copy holds base + 1, the original base. */
    CHECK_INT(MPI_Type_dup(type, &copy), MPI_SUCCESS);
    CHECK_INT(copies, 1);
    CHECK(get(copy, key, &flag) == base + 1);
    CHECK_INT(flag, 1);
    CHECK(get(type, key, &flag) == base);

    /* Replacing a value runs the delete function on the old one. */
    CHECK_INT(MPI_Type_set_attr(type, key, base + 2), MPI_SUCCESS);
    CHECK_INT(deletes, 1);
    CHECK(last_deleted_value == base);
    CHECK(get(type, key, &flag) == base + 2);

    /* Delete_attr runs it too, and the attribute is gone. */
    CHECK_INT(MPI_Type_delete_attr(type, key), MPI_SUCCESS);
    CHECK_INT(deletes, 2);
    CHECK(last_deleted_value == base + 2);
    CHECK(last_deleted_type == type);
    get(type, key, &flag);
    CHECK_INT(flag, 0);

    /* Free runs it on every attribute left. */
    MPI_Datatype freed = copy;
    CHECK_INT(MPI_Type_free(&copy), MPI_SUCCESS);
    CHECK_INT(deletes, 3);
    CHECK(last_deleted_value == base + 1);
    CHECK(last_deleted_type == freed);

    /* Attributes on a predefined type. */
    CHECK_INT(MPI_Type_set_attr(MPI_DOUBLE, key, base + 3), MPI_SUCCESS);
    CHECK(get(MPI_DOUBLE, key, &flag) == base + 3);
    CHECK_INT(MPI_Type_delete_attr(MPI_DOUBLE, key), MPI_SUCCESS);
    CHECK_INT(deletes, 4);

    /* MPI_TYPE_DUP_FN copies the value as is; MPI_TYPE_NULL_COPY_FN does not copy. */
    int dup_key, null_key;
    MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &dup_key, NULL);
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &null_key, NULL);
    MPI_Type_set_attr(type, dup_key, base);
    MPI_Type_set_attr(type, null_key, base);
    MPI_Type_dup(type, &copy);
    CHECK(get(copy, dup_key, &flag) == base);
    CHECK_INT(flag, 1);
    get(copy, null_key, &flag);
    CHECK_INT(flag, 0);
    MPI_Type_free(&copy);
    MPI_Type_free(&type);
    MPI_Type_free_keyval(&dup_key);
    MPI_Type_free_keyval(&null_key);
    CHECK_INT(MPI_Type_free_keyval(&key), MPI_SUCCESS);
    CHECK_INT(key, MPI_KEYVAL_INVALID);
}

static void failing_callbacks_are_errors(void) {
    int key, flag;
    char base[2];
    MPI_Datatype type, copy = MPI_INT;
    MPI_Type_create_keyval(copy_plus_one, count_delete, &key, &copies);
    MPI_Type_dup(MPI_INT, &type);
    MPI_Type_set_attr(type, key, base);

    /* A failing delete function fails the call and leaves the value. */
    fail_delete = 1;
    CHECK(MPI_Type_set_attr(type, key, base + 1) != MPI_SUCCESS);
    CHECK(get(type, key, &flag) == base);
    CHECK(MPI_Type_delete_attr(type, key) != MPI_SUCCESS);
    CHECK(get(type, key, &flag) == base);
    CHECK_INT(flag, 1);
    fail_delete = 0;

    /* A failing copy function fails MPI_Type_dup, which returns MPI_DATATYPE_NULL. */
    fail_copy = 1;
    CHECK(MPI_Type_dup(type, &copy) != MPI_SUCCESS);
    CHECK(copy == MPI_DATATYPE_NULL);
    fail_copy = 0;

    const int before = deletes;
    CHECK_INT(MPI_Type_free(&type), MPI_SUCCESS);
    CHECK_INT(deletes, before + 1);
    MPI_Type_free_keyval(&key);
}

static void keys_of_the_wrong_kind_are_rejected(void) {
    int comm_key, type_key, win_key, flag;
    void* value;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &comm_key, NULL);
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &type_key, NULL);
    CHECK_INT(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &win_key, NULL), MPI_SUCCESS);
    CHECK(win_key != MPI_KEYVAL_INVALID);

    CHECK_INT(mpi_error_class(MPI_Type_set_attr(MPI_INT, comm_key, NULL)), MPI_ERR_KEYVAL);
    CHECK_INT(mpi_error_class(MPI_Type_get_attr(MPI_INT, win_key, &value, &flag)), MPI_ERR_KEYVAL);
    CHECK_INT(mpi_error_class(MPI_Comm_set_attr(MPI_COMM_WORLD, type_key, NULL)), MPI_ERR_KEYVAL);
    CHECK_INT(mpi_error_class(MPI_Type_free_keyval(&comm_key)), MPI_ERR_KEYVAL);
    CHECK_INT(mpi_error_class(MPI_Comm_free_keyval(&type_key)), MPI_ERR_KEYVAL);
    CHECK_INT(mpi_error_class(MPI_Type_set_attr(MPI_INT, MPI_KEYVAL_INVALID, NULL)), MPI_ERR_KEYVAL);
    CHECK_INT(mpi_error_class(MPI_Type_set_attr(MPI_DATATYPE_NULL, type_key, NULL)), MPI_ERR_TYPE);
    /* No attribute to delete. */
    CHECK_INT(mpi_error_class(MPI_Type_delete_attr(MPI_INT, type_key)), MPI_ERR_KEYVAL);
    /* Windows stay unsupported: setting a window attribute says so. */
    CHECK_INT(mpi_error_class(MPI_Win_set_attr(MPI_WIN_NULL, win_key, NULL)), MPI_ERR_UNSUPPORTED_OPERATION);

    CHECK_INT(MPI_Win_free_keyval(&win_key), MPI_SUCCESS);
    CHECK_INT(win_key, MPI_KEYVAL_INVALID);
    MPI_Comm_free_keyval(&comm_key);
    MPI_Type_free_keyval(&type_key);
    /* A freed key with no attribute is gone. */
    int stale = type_key;
    CHECK_INT(mpi_error_class(MPI_Type_set_attr(MPI_INT, stale, NULL)), MPI_ERR_KEYVAL);
}

static void a_freed_key_lives_while_attributes_use_it(void) {
    int key, copy_of_key, flag;
    char base[2];
    MPI_Datatype a, b;
    MPI_Type_dup(MPI_INT, &a);
    MPI_Type_dup(MPI_INT, &b);
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, free_key_on_delete, &key, NULL);
    copy_of_key = key;
    MPI_Type_set_attr(a, key, base);
    MPI_Type_set_attr(b, key, base + 1);

    const int before = deletes;
    CHECK_INT(MPI_Type_free(&a), MPI_SUCCESS);  /* the delete function frees the key */
    CHECK_INT(deletes, before + 1);
    /* b's attribute still reads, but no new attribute may use the key. */
    CHECK(get(b, copy_of_key, &flag) == base + 1);
    CHECK_INT(flag, 1);
    CHECK_INT(mpi_error_class(MPI_Type_set_attr(MPI_INT, copy_of_key, NULL)), MPI_ERR_KEYVAL);
    /* Freeing it again while b uses it does nothing (as MPICH). */
    CHECK_INT(MPI_Type_free_keyval(&key), MPI_SUCCESS);
    CHECK_INT(MPI_Type_free(&b), MPI_SUCCESS);  /* its delete function still runs */
    CHECK_INT(deletes, before + 2);
    /* Now the key is gone. */
    CHECK_INT(mpi_error_class(MPI_Type_free_keyval(&copy_of_key)), MPI_ERR_KEYVAL);
}

static void names(void) {
    check_name(MPI_INT, "MPI_INT");
    check_name(MPI_DOUBLE, "MPI_DOUBLE");
    check_name(MPI_2INT, "MPI_2INT");
    check_name(MPI_INTEGER, "MPI_INTEGER");
    check_name(MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION");
    check_name(MPI_2REAL, "MPI_2REAL");
    check_name(MPI_CHARACTER, "MPI_CHARACTER");
    check_name(MPI_COMPLEX16, "MPI_COMPLEX16");
    /* Same layout as a C type, a name of their own. */
    check_name(MPI_C_COMPLEX, "MPI_C_COMPLEX");
    check_name(MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX");
    check_name(MPI_CXX_BOOL, "MPI_CXX_BOOL");
    check_name(MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX");
    check_name(MPI_LB, "MPI_LB");
    float in[2] = {1.0f, 2.0f}, inout[2] = {3.0f, 4.0f};
    CHECK_INT(MPI_Reduce_local(in, inout, 1, MPI_C_COMPLEX, MPI_SUM), MPI_SUCCESS);
    CHECK(inout[0] == 4.0f && inout[1] == 6.0f);
    _Bool flags_in[2] = {1, 0}, flags[2] = {1, 1};
    CHECK_INT(MPI_Reduce_local(flags_in, flags, 2, MPI_CXX_BOOL, MPI_LAND), MPI_SUCCESS);
    CHECK(flags[0] == 1 && flags[1] == 0);

    MPI_Datatype type;
    MPI_Type_vector(2, 1, 2, MPI_INT, &type);
    check_name(type, "");
    CHECK_INT(MPI_Type_set_name(type, "strided pair"), MPI_SUCCESS);
    check_name(type, "strided pair");
    /* A dup does not inherit the name. */
    MPI_Datatype copy;
    MPI_Type_dup(type, &copy);
    check_name(copy, "");
    MPI_Type_free(&copy);
    MPI_Type_free(&type);
    /* Predefined types can be renamed (MPI 3.1 §6.8). */
    CHECK_INT(MPI_Type_set_name(MPI_FLOAT, "single"), MPI_SUCCESS);
    check_name(MPI_FLOAT, "single");
    MPI_Type_set_name(MPI_FLOAT, "MPI_FLOAT");

    /* Communicator names, which the shim already had. */
    char name[MPI_MAX_OBJECT_NAME];
    int length;
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &length);
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0);
    CHECK_INT(length, 14);
    MPI_Comm_get_name(MPI_COMM_SELF, name, &length);
    CHECK(strcmp(name, "MPI_COMM_SELF") == 0);
    MPI_Comm dup, dup_of_dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_get_name(dup, name, &length);
    CHECK_INT(length, 0);
    MPI_Comm_set_name(dup, "halo");
    MPI_Comm_get_name(dup, name, &length);
    CHECK(strcmp(name, "halo") == 0);
    MPI_Comm_dup(dup, &dup_of_dup);
    MPI_Comm_get_name(dup_of_dup, name, &length);
    CHECK_INT(length, 0);
    MPI_Comm_free(&dup_of_dup);
    MPI_Comm_free(&dup);
}

/* Communicator attributes: a failing delete function leaves the attribute,
 * so a failing copy function then fails MPI_Comm_dup. */
static int comm_delete_fails = 1;
static int comm_copy_fails(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag) {
    (void)comm, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 1;
    return MPI_ERR_OTHER;
}
static int comm_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
    (void)comm, (void)keyval, (void)value, (void)extra;
    return comm_delete_fails ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static void comm_attribute_callbacks_that_fail(void) {
    MPI_Comm dup, copy = MPI_COMM_NULL;
    int key, flag;
    void* value;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    MPI_Comm_create_keyval(comm_copy_fails, comm_delete, &key, NULL);
    CHECK_INT(MPI_Comm_set_attr(dup, key, (void*)1), MPI_SUCCESS);
    CHECK(MPI_Comm_delete_attr(dup, key) != MPI_SUCCESS);
    CHECK_INT(MPI_Comm_get_attr(dup, key, &value, &flag), MPI_SUCCESS);
    CHECK_INT(flag, 1);
    CHECK(value == (void*)1);
    CHECK_INT(mpi_error_class(MPI_Comm_dup(dup, &copy)), MPI_ERR_OTHER);
    comm_delete_fails = 0;
    CHECK_INT(MPI_Comm_delete_attr(dup, key), MPI_SUCCESS);
    MPI_Comm_free_keyval(&key);
    MPI_Comm_free(&dup);
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first, last set first
 * (MPI 3.1 §8.7.1), while MPI is still usable. */
static int finalize_order[3], finalize_calls = 0;
static int self_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
    (void)keyval, (void)extra;
    int finalized = 1;
    MPI_Finalized(&finalized);
    CHECK_INT(finalized, 0);
    CHECK(comm == MPI_COMM_SELF);
    if (finalize_calls < 3) finalize_order[finalize_calls] = (int)(long)value;
    ++finalize_calls;
    return MPI_SUCCESS;
}

static void attributes_on_self_for_finalize(void) {
    /* Keys made in one order, attributes set in another (the order of
       setting counts, not the keys'): values 0, 1, 2 set on keys 2, 0, 1. */
    int keys[3];
    for (int i = 0; i < 3; ++i) MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &keys[i], NULL);
    const int key_of_value[3] = {2, 0, 1};
    for (long value = 0; value < 3; ++value) MPI_Comm_set_attr(MPI_COMM_SELF, keys[key_of_value[value]], (void*)value);
    for (int i = 0; i < 3; ++i) MPI_Comm_free_keyval(&keys[i]);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    attributes_follow_dup_and_free();
    failing_callbacks_are_errors();
    keys_of_the_wrong_kind_are_rejected();
    a_freed_key_lives_while_attributes_use_it();
    names();
    comm_attribute_callbacks_that_fail();
    attributes_on_self_for_finalize();
    MPI_Finalize();
    CHECK_INT(finalize_calls, 3);
    CHECK_INT(finalize_order[0], 2);
    CHECK_INT(finalize_order[1], 1);
    CHECK_INT(finalize_order[2], 0);
    return mpi_check_done("mpi_type_attributes", rank);
}
